import { z } from 'zod';
import { InputError } from '../../../errors';
import { PullRequestRecordSchema, type PullRequestRecord } from '../../../schemas';
import { GitHubUnavailableError } from '../../errors';
import { changesTests, fileKind } from '../../file-kind';
import type { ProgressListener } from '../../progress';
import type { GitHubClient } from './client';
import type { GitHubContext } from './context';
import { DiskCache } from './disk-cache';
import { finishDetails, graphDetails, type Unfinished } from './graph-details';
import { listPulls } from './list-pulls';
import { parsePayload, PullDetail, RepoPayload, type PullListItem } from './payloads';
import { isRebaseMerge, rebaseBases } from './rebase-bases';
import { explainRequestError } from './request-errors';
import { restDetail } from './rest-details';

interface GitHubMineOptions {
  /** "owner/name". */
  repo: string;
  client: GitHubClient;
  baseUrl: string;
  hasToken: boolean;
  /** Root of the cache; each API host and repository gets its own folder below it. */
  cacheDir: string;
  /** Base branch whose merged PRs are mined; the repository's default branch if absent. */
  branch?: string;
  /** Revalidate cached listing pages even while fresh. */
  refresh?: boolean;
  /** How long listing pages are trusted without asking (default an hour). */
  listTtlMs?: number;
  /** PRs per GraphQL query. */
  batchSize?: number;
  now?: () => number;
  onProgress?: ProgressListener;
  warn?: (message: string) => void;
}

export interface GitHubMineResult {
  prs: PullRequestRecord[];
  /** Every PR number the listing showed, merged or not: other numbers are issues. */
  pullNumbers: Set<number>;
  branch: string;
  /** Merged PRs that could not become records, by reason. */
  dropped: Record<string, number>;
  context: GitHubContext;
}

const RepoEntry = z.object({ version: z.literal(1), fetchedAt: z.number(), repo: RepoPayload });
/** Version 2: details before it may lack a long review's inline comments past its tenth (fetched since). */
const DETAIL_VERSION = 2;
const DetailEntry = z.object({ version: z.literal(DETAIL_VERSION), detail: PullDetail });

export function parseRepoName(repo: string): { owner: string; name: string } {
  const match = /^([\w.-]+)\/([\w.-]+)$/.exec(repo);
  if (!match) throw new InputError(`--github wants owner/name, got "${repo}"`);
  return { owner: match[1], name: match[2] };
}

/**
 * Merged PRs of a GitHub repository as records: the listing (REST, 100 a page, revalidated with
 * ETags), then details for the PRs the cache lacks or that changed since (GraphQL, many PRs per
 * query; REST without a token). Every answer is cached as it arrives, so an interrupted mine
 * resumes without asking again.
 */
export async function mineGitHub(opts: GitHubMineOptions): Promise<GitHubMineResult> {
  const { owner, name } = parseRepoName(opts.repo);
  const host = new URL(opts.baseUrl).host.replace(/[^\w.-]+/g, '_');
  const ctx: GitHubContext = {
    client: opts.client,
    owner,
    name,
    baseUrl: opts.baseUrl,
    hasToken: opts.hasToken,
    cache: new DiskCache(`${opts.cacheDir}/${host}/${owner}/${name}`, opts.warn),
    now: opts.now ?? Date.now,
    onProgress: opts.onProgress,
  };
  const ttlMs = opts.listTtlMs ?? 60 * 60 * 1000;
  const repo = await repository(ctx, ttlMs, opts.refresh);
  const branch = opts.branch ?? repo.default_branch;
  const listed = await listPulls(ctx, { ttlMs, refresh: opts.refresh });

  const dropped: Record<string, number> = {
    'other-base': 0,
    'no-merge-commit': 0,
    'unresolved-base': 0,
    unrecordable: 0,
  };
  const elsewhere: PullListItem[] = [];
  const merged = listed.filter((item) => {
    if (item.merged_at === null) return false;
    if (item.base.ref !== branch) elsewhere.push(item);
    else if (item.merge_commit_sha === null) dropped['no-merge-commit'] += 1;
    else return true;
    return false;
  });
  const details = await fetchDetails(ctx, merged, opts.batchSize ?? 50);
  // A PR merged into a release branch reaches this one inside a merge-up PR's commits: it is a PR
  // of this branch too, and its commits are its own, not the merge-up's.
  const carried = new Set([...details.values()].flatMap((detail) => detail.commits.map((commit) => commit.oid)));
  const swallowed = elsewhere.filter((item) => item.merge_commit_sha !== null && carried.has(item.merge_commit_sha));
  dropped['other-base'] = elsewhere.length - swallowed.length;
  for (const [number, detail] of await fetchDetails(ctx, swallowed, opts.batchSize ?? 50)) details.set(number, detail);
  await resolveRebaseBases(ctx, [...details.values()]);
  const foreign = new Map<string, number>();
  for (const item of swallowed) {
    const detail = details.get(item.number);
    for (const sha of [item.merge_commit_sha as string, ...(detail?.commits.map((commit) => commit.oid) ?? [])])
      foreign.set(sha, item.number);
  }

  const prs: PullRequestRecord[] = [];
  for (const item of [...merged, ...swallowed]) {
    const detail = details.get(item.number);
    if (!detail?.mergeCommit) dropped['no-merge-commit'] += 1;
    else if (detail.rebaseBase === null) dropped['unresolved-base'] += 1;
    else {
      const own = {
        ...detail,
        commits: detail.commits.filter((commit) => (foreign.get(commit.oid) ?? item.number) === item.number),
      };
      const record = PullRequestRecordSchema.safeParse(toRecord(item, own));
      if (record.success) prs.push(record.data);
      else {
        dropped.unrecordable += 1;
        opts.warn?.(
          `skipped PR #${item.number}: its record does not fit the schema (${record.error.issues[0]?.message})`,
        );
      }
    }
  }
  prs.sort((a, b) => a.mergedAt.localeCompare(b.mergedAt) || a.number - b.number);
  return { prs, pullNumbers: new Set(listed.map((item) => item.number)), branch, dropped, context: ctx };
}

async function repository(ctx: GitHubContext, ttlMs: number, refresh?: boolean): Promise<RepoPayload> {
  const cached = await ctx.cache.read('repository', RepoEntry);
  if (cached && !refresh && ctx.now() - cached.fetchedAt < ttlMs) return ctx.cache.hit(cached).repo;
  const what = `GET /repos/${ctx.owner}/${ctx.name}`;
  let data: unknown;
  try {
    data = (await ctx.client.request('GET /repos/{owner}/{repo}', { owner: ctx.owner, repo: ctx.name })).data;
  } catch (error) {
    throw explainRequestError(error, ctx, what);
  }
  const repo = parsePayload(RepoPayload, data, what);
  await ctx.cache.write('repository', { version: 1, fetchedAt: ctx.now(), repo });
  return repo;
}

/** Cached details whose PR has not changed since, and fresh ones for the rest, cached batch by batch. */
async function fetchDetails(
  ctx: GitHubContext,
  merged: PullListItem[],
  batchSize: number,
): Promise<Map<number, PullDetail>> {
  const details = new Map<number, PullDetail>();
  const missing: PullListItem[] = [];
  for (const item of merged) {
    const cached = await ctx.cache.read(`details/${item.number}`, DetailEntry, DETAIL_VERSION);
    const usable =
      cached && cached.detail.updatedAt === item.updated_at && (!ctx.hasToken || cached.detail.source !== 'rest');
    if (usable) details.set(item.number, ctx.cache.hit(cached.detail));
    else missing.push(item);
  }
  const total = merged.length;
  ctx.onProgress?.({ phase: 'fetching PR details', done: details.size, total });
  const keep = async (items: PullListItem[], fetched: Map<number, Omit<PullDetail, 'updatedAt'>>) => {
    for (const item of items) {
      const detail = fetched.get(item.number);
      if (!detail) continue;
      const full: PullDetail = { ...detail, updatedAt: item.updated_at, source: ctx.hasToken ? 'graphql' : 'rest' };
      await ctx.cache.write(`details/${item.number}`, { version: DETAIL_VERSION, detail: full });
      details.set(item.number, full);
    }
    ctx.onProgress?.({ phase: 'fetching PR details', done: details.size, total });
  };
  const size = ctx.hasToken ? batchSize : 1;
  const unfinished: Unfinished[] = [];
  // A batch cut short by a 502 puts PRs back at the front, to ride along in the next batch.
  const queue = [...missing];
  while (queue.length > 0) {
    const batch = queue.splice(0, size);
    if (!ctx.hasToken) {
      await keep(batch, new Map([[batch[0].number, await restDetail(ctx, batch[0])]]));
      continue;
    }
    const fetched = await graphBatch(ctx, batch, queue);
    unfinished.push(...fetched.unfinished);
    await keep(batch, fetched.details);
  }
  // The pages past the first, for every PR of every batch that has them at once (cached only then:
  // an interrupted mine asks for these PRs' first pages again).
  if (unfinished.length > 0) await keep(missing, await finishDetails(ctx, unfinished));
  return details;
}

/**
 * GitHub answers 502 when a GraphQL query takes too long, which a heavy PR can cause, and asked
 * again it mostly takes too long again: a batch that fails is split in two at once and the first
 * half tried. If that half fails too, the heavy PR is in it, and the second half goes back to the
 * `queue` to fill a later batch instead of costing a query of its own; if it passes, the second
 * half is narrowed down the same way. Only a single PR's query is retried before the mine gives up.
 */
async function graphBatch(
  ctx: GitHubContext,
  batch: PullListItem[],
  queue: PullListItem[],
): Promise<Awaited<ReturnType<typeof graphDetails>> & { failed: boolean }> {
  try {
    return {
      ...(await graphDetails(
        ctx,
        batch.map((item) => item.number),
        batch.length > 1 ? { retries: 0 } : {},
      )),
      failed: false,
    };
  } catch (error) {
    if (!(error instanceof GitHubUnavailableError) || batch.length === 1) throw error;
    const half = Math.ceil(batch.length / 2);
    const first = await graphBatch(ctx, batch.slice(0, half), queue);
    if (first.failed) {
      queue.unshift(...batch.slice(half));
      return first;
    }
    const second = await graphBatch(ctx, batch.slice(half), queue);
    return {
      details: new Map([...first.details, ...second.details]),
      unfinished: [...first.unfinished, ...second.unfinished],
      failed: true,
    };
  }
}

async function resolveRebaseBases(ctx: GitHubContext, details: PullDetail[]): Promise<void> {
  const pending = details.filter((detail) => detail.rebaseBase === undefined && isRebaseMerge(detail));
  if (pending.length === 0) return;
  const bases = await rebaseBases(ctx, pending);
  for (const detail of pending) {
    detail.rebaseBase = bases.get(detail.number) ?? null;
    await ctx.cache.write(`details/${detail.number}`, { version: DETAIL_VERSION, detail });
  }
}

function toRecord(item: PullListItem, detail: PullDetail): unknown {
  const merge = detail.mergeCommit!;
  const rebased = typeof detail.rebaseBase === 'string';
  return {
    number: item.number,
    title: item.title,
    body: item.body ?? '',
    // A rebase merge's landing commit is the PR's last commit: its message is already in the list.
    messages: [...(rebased ? [] : [merge.message]), ...detail.commits.map((commit) => commit.message)],
    author: item.user?.login ?? 'ghost',
    authorIsBot: item.user?.type === 'Bot',
    mergedAt: new Date(item.merged_at as string).toISOString(),
    landing: 'api',
    mergeMethod: merge.parents.length > 1 ? 'merge' : rebased ? 'rebase' : 'squash',
    baseSha: rebased ? detail.rebaseBase : merge.parents[0],
    mergeSha: merge.oid,
    files: detail.files.map((file) => ({ ...file, kind: fileKind(file.path), binary: false })),
    changesTests: changesTests(detail.files.map((file) => ({ kind: fileKind(file.path) }))),
    headSha: item.head.sha,
    commitShas: detail.commits.map((commit) => commit.oid),
    labels: item.labels.map((label) => label.name),
    comments: detail.comments,
    closingIssues: detail.closingIssues,
    mentionedBy: detail.mentionedBy,
    url: item.html_url,
  };
}
