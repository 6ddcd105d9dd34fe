import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { git } from '../../src/git';
import { graphqlCost } from './fake-github-cost';
import { answerGraphql, historyOf } from './fake-github-graphql';

export interface FakeCommit {
  sha: string;
  message: string;
  parents: string[];
}

export interface FakeFile {
  path: string;
  additions: number;
  deletions: number;
  status: 'added' | 'modified' | 'removed' | 'renamed';
}

export interface FakeComment {
  user: string;
  body: string;
}

export interface FakePull {
  number: number;
  title: string;
  body: string | null;
  user: string;
  labels?: string[];
  state: 'open' | 'closed';
  createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  baseRef: string;
  baseSha: string;
  headSha: string;
  mergeSha: string | null;
  files: FakeFile[];
  /** The PR's own commits, oldest first. */
  commits: FakeCommit[];
  comments?: FakeComment[];
  reviews?: (FakeComment & { comments?: FakeComment[] })[];
  closingIssues?: number[];
  /** Where GitHub's timeline says this PR was mentioned: an issue or PR, here or in another repository. */
  mentionedIn?: { kind: 'Issue' | 'PullRequest'; number: number; repo?: string }[];
}

export interface FakeRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  pulls: FakePull[];
  /** Every commit the API can name (merge commits, their histories), by SHA. */
  commits: Map<string, FakeCommit>;
  /** A git repository that holds those commits: compare diffs come from it. */
  gitDir?: string;
}

/** What the fake saw of one request, for tests to count. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  status: number;
  /** For POST /graphql: the operation's text. */
  graphql?: string;
  /** For POST /graphql: the rate-limit points it was charged (GitHub's formula, fake-github-cost.ts). */
  points?: number;
}

export interface FaultResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Answer normally, but change the JSON first (a malformed payload). */
  malform?: (body: any) => unknown;
}

interface Fault {
  when: (request: Omit<SeenRequest, 'status'>) => boolean;
  left: number;
  response: FaultResponse | ((now: number) => FaultResponse);
}

const DOCS = 'https://docs.github.com/rest';

/** 403 with the primary rate limit spent, as GitHub sends it; the reset is `seconds` away. */
export const rateLimited =
  (seconds: number) =>
  (now: number): FaultResponse => ({
    status: 403,
    headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(now / 1000) + seconds) },
    body: {
      message: 'API rate limit exceeded for user ID 1.',
      documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`,
    },
  });

/** A secondary (abuse) limit: 429 or 403 with Retry-After. */
export const secondaryLimit = (retryAfter: number, status = 429): FaultResponse => ({
  status,
  headers: { 'retry-after': String(retryAfter) },
  body: {
    message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
    documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`,
  },
});

export const serverError = (status = 502): FaultResponse => ({ status, body: { message: 'Server Error' } });

/**
 * A GitHub API on 127.0.0.1 that answers like GitHub does, so the real @octokit/rest client is what
 * the miner talks to: REST lists paginated through Link headers, ETags and 304s, rate-limit headers
 * on every answer (and 403s once spent), 401 for GraphQL without a token, 404 for unknown
 * repositories, and GraphQL executed against a subset of GitHub's schema. Faults are scripted.
 */
export class FakeGitHub {
  readonly requests: SeenRequest[] = [];
  private readonly faults: Fault[] = [];
  private server?: Server;
  private readonly remaining = new Map<string, number>();
  private windowStart = Date.now();
  private baseUrl = '';

  constructor(
    private readonly repos: FakeRepo[],
    private readonly opts: { token?: string; limits?: { core?: number; graphql?: number; anonymous?: number } } = {},
  ) {}

  /** As if GitHub's hour had passed: every budget is full again. */
  resetRateLimits(): void {
    this.windowStart = Date.now();
    this.remaining.clear();
  }

  /** The next `times` requests that `when` matches get `response` instead of the normal answer. */
  fail(when: Fault['when'], response: Fault['response'], times = 1): this {
    this.faults.push({ when, response, left: times });
    return this;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** GraphQL rate-limit points charged so far, as GitHub computes them from each query. */
  points(): number {
    return this.requests.reduce((sum, r) => sum + (r.points ?? 0), 0);
  }

  /** Requests that reached the fake, optionally only those whose path matches. */
  count(path?: RegExp): number {
    return this.requests.filter((r) => !path || path.test(r.path)).length;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        this.handle(req, res, raw).catch((error) =>
          this.send(res, req, { status: 500, body: { message: String(error) } }, 'core'),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const method = req.method ?? 'GET';
    const isGraphql = method === 'POST' && url.pathname === '/graphql';
    const graphqlBody = isGraphql
      ? (JSON.parse(raw || '{}') as { query?: string; variables?: Record<string, unknown> })
      : undefined;
    const graphqlText = graphqlBody?.query;
    const seen = { method, path: url.pathname, query: url.searchParams, graphql: graphqlText };
    const resource = isGraphql ? 'graphql' : 'core';

    const fault = this.faults.find((f) => f.left > 0 && f.when(seen));
    if (fault) fault.left -= 1;
    const scripted = fault
      ? typeof fault.response === 'function'
        ? fault.response(Date.now())
        : fault.response
      : undefined;
    if (scripted && !scripted.malform) return this.send(res, req, scripted, resource, seen);

    const authorization = req.headers.authorization;
    const token = authorization?.replace(/^(token|bearer)\s+/i, '');
    if (this.opts.token && token && token !== this.opts.token) {
      return this.send(
        res,
        req,
        { status: 401, body: { message: 'Bad credentials', documentation_url: DOCS } },
        resource,
        seen,
      );
    }
    if (isGraphql && !token) {
      return this.send(
        res,
        req,
        { status: 401, body: { message: 'This endpoint requires you to be authenticated.', documentation_url: DOCS } },
        resource,
        seen,
      );
    }
    // GitHub charges a GraphQL query its points (at least 1), a REST request 1.
    const cost = graphqlText ? pointsOf(graphqlText, graphqlBody?.variables) : 1;
    if (this.left(resource, token) < cost) {
      return this.send(
        res,
        req,
        rateLimited(Math.ceil((this.windowStart + 3_600_000 - Date.now()) / 1000))(Date.now()),
        resource,
        seen,
      );
    }

    let answer: FaultResponse & { text?: string };
    try {
      const rateLimit = {
        cost,
        limit: this.limit(resource, token),
        remaining: this.left(resource, token) - cost,
        resetAt: new Date(this.windowStart + 3_600_000).toISOString(),
      };
      answer = isGraphql ? await answerGraphql(this.repos, rateLimit, raw) : await this.rest(method, url, req);
    } catch (error) {
      answer = { status: 500, body: { message: String(error) } };
    }
    if (scripted?.malform && answer.body !== undefined)
      answer = { ...answer, body: scripted.malform(structuredClone(answer.body)) };
    const etag =
      answer.body !== undefined && method === 'GET'
        ? `W/"${createHash('sha1').update(JSON.stringify(answer.body)).digest('hex')}"`
        : undefined;
    if (etag && req.headers['if-none-match'] === etag) {
      // GitHub does not charge a conditional request that comes back 304 against the rate limit.
      return this.send(res, req, { status: 304, headers: { etag } }, resource, seen, 0);
    }
    this.send(res, req, { ...answer, headers: { ...answer.headers, ...(etag ? { etag } : {}) } }, resource, seen, cost);
  }

  /** Budgets are per credential, as on GitHub: a token's 5,000 an hour, or an address's 60. */
  private limit(resource: string, token: string | undefined): number {
    if (!token) return this.opts.limits?.anonymous ?? 60;
    return (resource === 'graphql' ? this.opts.limits?.graphql : this.opts.limits?.core) ?? 5000;
  }

  private left(resource: string, token: string | undefined): number {
    if (Date.now() - this.windowStart >= 3_600_000) this.resetRateLimits();
    const key = `${resource} ${token ?? ''}`;
    if (!this.remaining.has(key)) this.remaining.set(key, this.limit(resource, token));
    return this.remaining.get(key) as number;
  }

  private send(
    res: ServerResponse,
    req: IncomingMessage,
    answer: FaultResponse & { text?: string },
    resource: string,
    seen?: Omit<SeenRequest, 'status'>,
    charge = 1,
  ): void {
    const status = answer.status ?? 200;
    const token = req.headers.authorization?.replace(/^(token|bearer)\s+/i, '');
    const left = Math.max(0, this.left(resource, token) - charge);
    if (charge) this.remaining.set(`${resource} ${token ?? ''}`, left);
    const limit = this.limit(resource, token);
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(left),
      'x-ratelimit-reset': String(Math.ceil((this.windowStart + 3_600_000) / 1000)),
      'x-ratelimit-used': String(limit - left),
      'x-ratelimit-resource': resource,
      'x-github-api-version-selected': '2022-11-28',
      ...answer.headers,
    };
    if (seen) this.requests.push({ ...seen, status, ...(seen.graphql !== undefined ? { points: charge } : {}) });
    if (status === 304) {
      res.writeHead(304, headers).end();
    } else if (answer.text !== undefined) {
      res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end(answer.text);
    } else {
      res
        .writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify(answer.body ?? {}));
    }
  }

  // ---------------------------------------------------------------- REST

  private async rest(method: string, url: URL, req: IncomingMessage): Promise<FaultResponse & { text?: string }> {
    const notFound = { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (method !== 'GET' || !match) return notFound;
    const repo = this.repos.find((r) => r.owner === match[1] && r.name === match[2]);
    if (!repo) return notFound;
    const rest = match[3] ?? '';
    const pull = (n: string) => repo.pulls.find((p) => p.number === Number(n));
    const page = (items: unknown[]) => this.paginate(url, items);
    let m: RegExpExecArray | null;

    if (rest === '') return { body: repoJson(repo, this.baseUrl) };
    if (rest === '/pulls') {
      const state = url.searchParams.get('state') ?? 'open';
      const direction = url.searchParams.get('direction') ?? 'desc';
      const listed = repo.pulls
        .filter((p) => state === 'all' || p.state === state)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.number - b.number);
      if (direction === 'desc') listed.reverse();
      return page(listed.map((p) => pullJson(repo, p, this.baseUrl)));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest)))
      return pull(m[1]) ? { body: pullJson(repo, pull(m[1])!, this.baseUrl) } : notFound;
    if ((m = /^\/pulls\/(\d+)\/files$/.exec(rest))) {
      return pull(m[1])
        ? page(
            pull(m[1])!.files.map((f) => ({
              sha: hex(f.path),
              filename: f.path,
              status: f.status,
              additions: f.additions,
              deletions: f.deletions,
              changes: f.additions + f.deletions,
            })),
          )
        : notFound;
    }
    if ((m = /^\/pulls\/(\d+)\/commits$/.exec(rest)))
      return pull(m[1]) ? page(pull(m[1])!.commits.map(commitJson)) : notFound;
    if ((m = /^\/pulls\/(\d+)\/reviews$/.exec(rest))) {
      return pull(m[1])
        ? page(
            (pull(m[1])!.reviews ?? []).map((r, i) => ({
              id: i + 1,
              user: userJson(r.user),
              body: r.body,
              state: 'COMMENTED',
            })),
          )
        : notFound;
    }
    if ((m = /^\/pulls\/(\d+)\/comments$/.exec(rest))) {
      return pull(m[1])
        ? page(
            (pull(m[1])!.reviews ?? [])
              .flatMap((r) => r.comments ?? [])
              .map((c, i) => ({ id: i + 1, user: userJson(c.user), body: c.body })),
          )
        : notFound;
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      return page((pull(m[1])?.comments ?? []).map((c, i) => ({ id: i + 1, user: userJson(c.user), body: c.body })));
    }
    if ((m = /^\/commits\/([0-9a-f]{40})$/.exec(rest))) {
      const commit = repo.commits.get(m[1]);
      return commit
        ? { body: commitJson(commit) }
        : { status: 422, body: { message: `No commit found for SHA: ${m[1]}`, documentation_url: DOCS } };
    }
    if (rest === '/commits') {
      const history = historyOf(repo, url.searchParams.get('sha') ?? '');
      return page(history.map(commitJson));
    }
    if ((m = /^\/compare\/([0-9a-f]{40})\.\.\.([0-9a-f]{40})$/.exec(rest))) {
      if (!repo.gitDir || !/diff/.test(String(req.headers.accept))) return notFound;
      try {
        return {
          text: await git(repo.gitDir, [
            'diff',
            '--no-color',
            '--no-ext-diff',
            '--src-prefix=a/',
            '--dst-prefix=b/',
            `${m[1]}...${m[2]}`,
          ]),
        };
      } catch {
        return notFound;
      }
    }
    return notFound;
  }

  /** GitHub's page/per_page pagination with a Link header naming next, last, first and prev. */
  private paginate(url: URL, items: unknown[]): FaultResponse {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
    const current = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (page: number, rel: string) => {
      const target = new URL(url.toString());
      target.searchParams.set('page', String(page));
      return `<${target.toString()}>; rel="${rel}"`;
    };
    const links = [
      ...(current < last ? [link(current + 1, 'next'), link(last, 'last')] : []),
      ...(current > 1 ? [link(1, 'first'), link(current - 1, 'prev')] : []),
    ];
    return {
      body: items.slice((current - 1) * perPage, current * perPage),
      headers: links.length ? { link: links.join(', ') } : {},
    };
  }
}

// ---------------------------------------------------------------- payload shapes

function hex(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

function userJson(login: string) {
  return {
    login,
    id: parseInt(hex(login).slice(0, 8), 16),
    node_id: `U_${login}`,
    type: login.endsWith('[bot]') ? 'Bot' : 'User',
    site_admin: false,
  };
}

function repoJson(repo: FakeRepo, baseUrl: string) {
  return {
    id: parseInt(hex(repo.name).slice(0, 8), 16),
    node_id: `R_${repo.name}`,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: false,
    owner: userJson(repo.owner),
    html_url: `https://github.com/${repo.owner}/${repo.name}`,
    url: `${baseUrl}/repos/${repo.owner}/${repo.name}`,
    default_branch: repo.defaultBranch,
    fork: false,
  };
}

function pullJson(repo: FakeRepo, p: FakePull, baseUrl: string) {
  const api = `${baseUrl}/repos/${repo.owner}/${repo.name}`;
  return {
    url: `${api}/pulls/${p.number}`,
    id: p.number * 1000,
    node_id: `PR_${p.number}`,
    html_url: `https://github.com/${repo.owner}/${repo.name}/pull/${p.number}`,
    number: p.number,
    state: p.state,
    locked: false,
    title: p.title,
    user: userJson(p.user),
    body: p.body,
    labels: (p.labels ?? []).map((name, i) => ({ id: i + 1, name, color: 'ededed', default: false })),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    closed_at: p.state === 'closed' ? (p.mergedAt ?? p.updatedAt) : null,
    merged_at: p.mergedAt,
    merge_commit_sha: p.mergeSha,
    draft: false,
    head: { label: `${p.user}:pr-${p.number}`, ref: `pr-${p.number}`, sha: p.headSha, user: userJson(p.user) },
    base: { label: `${repo.owner}:${p.baseRef}`, ref: p.baseRef, sha: p.baseSha, user: userJson(repo.owner) },
    author_association: 'CONTRIBUTOR',
  };
}

function commitJson(c: FakeCommit) {
  return {
    sha: c.sha,
    node_id: `C_${c.sha}`,
    commit: {
      message: c.message,
      author: { name: 'Someone', email: 'someone@example.test', date: '2024-01-01T00:00:00Z' },
    },
    parents: c.parents.map((sha) => ({ sha })),
  };
}

/** A query that does not parse costs the minimum; GitHub answers it with its parse error. */
function pointsOf(query: string, variables?: Record<string, unknown>): number {
  try {
    return graphqlCost(query, variables);
  } catch {
    return 1;
  }
}
