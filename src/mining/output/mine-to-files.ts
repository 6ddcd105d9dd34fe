import { stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { writeAtomic } from '../../atomic-file';
import { dateWindow } from '../../date-window';
import { InputError } from '../../errors';
import { apiPatches } from '../landings/github/api-patches';
import { createGitHubClient, PUBLIC_API } from '../landings/github/client';
import { mineGitHub, parseRepoName } from '../landings/github/mine-github';
import { readLocalPullRequests } from '../landings/local-git';
import { repositoryName } from '../landings/repo-name';
import { withLocalPatches } from '../landings/local-patches';
import { recordsToChains, type PipelineOptions } from '../pipeline';
import type { PatchSource } from '../landings/patch-source';
import type { ProgressListener } from '../progress';
import { MiningSummarySchema, type MiningSummary } from '../summary';
import {
  EdgeSchema,
  PullRequestRecordSchema,
  type Edge,
  type PullRequest,
  type PullRequestRecord,
} from '../../schemas';
import { readChains, writeChains } from './chains-file';
import type { JudgeInput, LinkJudge } from '../links/link-judge/judge-links';
import {
  latestMerge,
  mineFingerprint,
  OptionsChanged,
  readPreviousMine,
  type MineCursor,
  type PreviousMine,
} from './cursor';
import { branchTip, checkNotRewritten, growPrevious, priorOf, toPrior, type Prior } from './incremental';
import type { MineResult } from './mine-result';

/** Mines a local clone into chains; what the demo calls. */
export async function mineChains(repoPath: string, name: string, maxLength?: number): Promise<MineResult> {
  return mineLocal(repoPath, name, { maxLength });
}

type SourceOptions = Omit<PipelineOptions, 'repo' | 'since'> & {
  branch?: string;
  onProgress?: ProgressListener;
  warn?: (message: string) => void;
  prior?: Prior;
};

/** Patches from the earlier mine where it made them; only new PRs are read from the source. */
function reusing(prior: Prior | undefined, source: PatchSource): PatchSource {
  return async (prs) => {
    const known = prs.map((pr) => prior?.patched.get(pr.number)).filter((pr): pr is PullRequest => pr !== undefined);
    const fresh = await source(prs.filter((pr) => !prior?.patched.has(pr.number)));
    return [...known, ...fresh];
  };
}

async function mineLocal(repoPath: string, name: string, opts: SourceOptions): Promise<MineResult> {
  const path = resolve(repoPath);
  const mined = await readLocalPullRequests(path, {
    branch: opts.branch,
    onProgress: opts.onProgress,
    warn: opts.warn,
  });
  // Links to this repository's own URLs are recognised by its owner/name, never by the clone's path.
  const patches = reusing(opts.prior, (prs) => withLocalPatches(path, prs));
  const result = await recordsToChains({ name, path }, mined.prs, patches, {
    ...opts,
    since: opts.prior && priorOf(opts.prior, mined.prs),
    repo: await repositoryName(path, name),
    pullNumbers: mined.pullNumbers,
    clone: path,
    blameWindowDays: (opts as GitHubSourceOptions).blameDays,
    onBlameProgress: (done, total) => opts.onProgress?.({ phase: 'reading code history', done, total }),
  });
  const summary = MiningSummarySchema.parse({
    repo: name,
    source: 'local',
    commits: mined.commits,
    ...result.summary,
    skipped: mined.skipped,
    dropped: { ...result.summary.dropped, ...(mined.skipped.length ? { unrecordable: mined.skipped.length } : {}) },
  });
  return wholeMine(result, mined.prs, summary, patches);
}

interface GitHubSourceOptions extends SourceOptions {
  /** Days of code history that link PRs (--blame-days). */
  blameDays?: number;
  /** "owner/name". */
  github: string;
  name?: string;
  /** A local clone: patches come from it, and chains name it as the repository to run in. */
  clone?: string;
  githubUrl?: string;
  cacheDir?: string;
  refresh?: boolean;
  batchSize?: number;
}

/** Where the mine runs: data directory, environment (token, API URL), warnings, and GitHub's second. */
interface MineEnvironment {
  dataDir: string;
  env?: Record<string, string | undefined>;
  warn?: (message: string) => void;
  /** Only tests change this (see createGitHubClient). */
  secondMs?: number;
  /** mine --judge-links with a model configured (src/mining/links/link-judge/from-config.ts). */
  judge?: LinkJudge;
}

/** Where a mine's warnings go: the caller's, or stderr. */
const warnerOf = (environment: MineEnvironment) =>
  environment.warn ?? ((message: string) => console.error(`warning: ${message}`));

/** A mine's result before any cursor: every chain it found is new. */
function wholeMine(
  result: Awaited<ReturnType<typeof recordsToChains>>,
  records: PullRequestRecord[],
  summary: MiningSummary,
  patches: PatchSource,
): MineResult {
  return {
    chains: result.chains,
    edges: result.edges,
    records,
    summary,
    prs: records.length,
    added: result.chains,
    stageable: result.stageable,
    patches,
  };
}

/** The API base URL, checked before a request: an http(s) URL. */
function apiUrl(value: string, from: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new InputError(`${from} wants an http(s) URL, got "${value}"`);
  return value;
}

async function mineFromGitHub(opts: GitHubSourceOptions, environment: MineEnvironment): Promise<MineResult> {
  const env = environment.env ?? process.env;
  const warn = warnerOf(environment);
  const token = env.CHAINSMITH_GITHUB_TOKEN || env.GITHUB_TOKEN || undefined;
  const baseUrl = apiUrl(
    opts.githubUrl ?? (env.CHAINSMITH_GITHUB_URL || PUBLIC_API),
    opts.githubUrl !== undefined ? '--github-url' : 'CHAINSMITH_GITHUB_URL',
  );
  const { owner, name } = parseRepoName(opts.github);
  const cacheDir = opts.cacheDir ?? join(environment.dataDir, 'cache', 'github');
  const cacheStat = await stat(cacheDir).catch(() => undefined);
  if (cacheStat && !cacheStat.isDirectory())
    throw new InputError(`the GitHub cache ${cacheDir} is not a directory (set --cache-dir to one)`);
  if (!token) {
    warn(
      'no GitHub token (set GITHUB_TOKEN): GitHub allows 60 requests an hour without one and no GraphQL, so PR details come one PR at a time',
    );
  }
  let requests = 0;
  const client = createGitHubClient({
    baseUrl,
    token,
    warn,
    secondMs: environment.secondMs,
    onRequest: () => (requests += 1),
  });
  const mined = await mineGitHub({
    repo: opts.github,
    client,
    baseUrl,
    hasToken: token !== undefined,
    cacheDir,
    branch: opts.branch,
    refresh: opts.refresh,
    batchSize: opts.batchSize,
    onProgress: opts.onProgress,
    warn,
  });
  const clone = opts.clone ? resolve(opts.clone) : undefined;
  const path = clone ?? join(environment.dataDir, 'repos', owner, name);
  const repoName = opts.name ?? opts.github;
  const patches = reusing(opts.prior, (prs) => (clone ? withLocalPatches(clone, prs) : apiPatches(mined.context, prs)));
  const result = await recordsToChains({ name: repoName, path }, mined.prs, patches, {
    ...opts,
    since: opts.prior && priorOf(opts.prior, mined.prs),
    repo: opts.github,
    pullNumbers: mined.pullNumbers,
    clone,
    blameWindowDays: opts.blameDays,
    onBlameProgress: (done, total) => opts.onProgress?.({ phase: 'reading code history', done, total }),
  });
  if (!clone && result.chains.length > 0) {
    warn(
      `the chains name ${path} as the clone to run in: clone ${opts.github} there before \`chainsmith start\`, or mine with --clone PATH`,
    );
  }
  const summary = MiningSummarySchema.parse({
    repo: repoName,
    source: 'github',
    ...result.summary,
    dropped: { ...result.summary.dropped, ...mined.dropped },
    requests,
    cacheHits: mined.context.cache.hits,
  });
  return wholeMine(result, mined.prs, summary, patches);
}

export interface MineToFilesOptions extends Omit<GitHubSourceOptions, 'github'> {
  out: string;
  /** A local clone to mine. */
  repo?: string;
  /** A GitHub repository to mine through the API. */
  github?: string;
  /** ISO times (parseDateOption): only PRs merged in [mergedAfter, mergedBefore) become stages. */
  mergedAfter?: string;
  mergedBefore?: string;
  /** Ignore the cursor of an earlier mine into --out and mine everything again. */
  fresh?: boolean;
  /**
   * Files mined with other options: refused (the default), or mined again from scratch with only the
   * chains the earlier files lacked counted as added (a schedule, which no one can rerun with --fresh).
   */
  whenOptionsChange?: 'refuse' | 'fresh';
  /** Called with the result before any file is written (a scheduled run records what it will start). */
  beforeWrite?: (result: MineResult) => Promise<void>;
}

/** chains.jsonl → chains.prs.jsonl, chains.edges.jsonl, chains.summary.json and chains.cursor.json beside it. */
export function companionPaths(out: string): { prs: string; edges: string; summary: string; cursor: string } {
  const stem = out.replace(/\.jsonl?$/, '');
  return {
    prs: `${stem}.prs.jsonl`,
    edges: `${stem}.edges.jsonl`,
    summary: `${stem}.summary.json`,
    cursor: `${stem}.cursor.json`,
  };
}

/** Mining a large repository takes minutes: a place the files cannot go is said before, not after. */
async function checkOutputLocation(out: string): Promise<void> {
  const folder = dirname(resolve(out));
  const info = await stat(folder).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error && info.code !== 'ENOENT' && info.code !== 'ENOTDIR') {
    throw new InputError(`--out ${out}: cannot reach ${folder} (${info.code ?? 'error'})`, { cause: info });
  }
  if (info instanceof Error || !info.isDirectory())
    throw new InputError(`--out ${out}: the folder ${folder} does not exist`);
  const target = await stat(resolve(out)).catch(() => undefined);
  if (target?.isDirectory()) throw new InputError(`--out ${out} is a folder; name the chains file to write`);
  // Permission bits do not tell (root ignores them; a read-only mount keeps them): try a file.
  const probe = join(folder, `.chainsmith-probe-${process.pid}`);
  try {
    await writeFile(probe, '');
  } catch (cause) {
    throw new InputError(
      `--out ${out}: cannot write in ${folder} (${(cause as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause },
    );
  }
  await unlink(probe);
}

/** The tip a local mine reads, checked against the cursor's: undefined through the API. */
async function localTip(opts: MineToFilesOptions, previous: PreviousMine | undefined): Promise<string | undefined> {
  if (!opts.repo) return undefined;
  const tip = await branchTip(resolve(opts.repo), opts.branch);
  if (tip && previous?.cursor.head) await checkNotRewritten(resolve(opts.repo), previous.cursor.head, tip, opts.out);
  return tip;
}

/**
 * One source, five files (chains, PR records, edges, summary, cursor); `chainsmith mine` (src/cli/mine.ts)
 * and scheduled runs call it, and it prints nothing. With a cursor from an earlier mine into --out
 * (same options), only what is new is added.
 */
export async function mineToFiles(opts: MineToFilesOptions, environment: MineEnvironment): Promise<MineResult> {
  if (!opts.repo === !opts.github)
    throw new InputError('say what to mine: either --repo PATH (a local clone) or --github OWNER/NAME');
  if (opts.clone && !opts.github)
    throw new InputError('--clone goes with --github; with --repo the clone is the repository itself');
  const window = dateWindow(opts.mergedAfter, opts.mergedBefore);
  await checkOutputLocation(opts.out);
  const paths = companionPaths(opts.out);
  const fingerprint = mineFingerprint({
    ...opts,
    judgeLinks: environment.judge?.model,
    repo: opts.repo && resolve(opts.repo),
    clone: opts.clone && resolve(opts.clone),
  });
  const warn = warnerOf(environment);
  const { previous, before } = await previousMine(opts, paths, fingerprint, warn);
  const tip = await localTip(opts, previous);
  if (previous && tip && tip === previous.cursor.head) return unchanged(previous);
  const { judge } = environment;
  const { onProgress } = opts;
  // The judge reports its progress where the miners do.
  const judgeWithProgress =
    judge &&
    Object.assign((edges: Edge[], input: JudgeInput) => judge(edges, { ...input, onProgress }), { model: judge.model });
  const source = { ...opts, window, warn, prior: previous && toPrior(previous), judge: judgeWithProgress };
  let result = opts.github
    ? await mineFromGitHub({ ...source, github: opts.github }, environment)
    : await mineLocal(opts.repo as string, opts.name ?? basename(resolve(opts.repo as string)), source);
  if (previous) result = await growPrevious(previous, result, opts);
  if (before) result = { ...result, added: result.chains.filter((chain) => !before.has(chain.id)) };
  await opts.beforeWrite?.(result);
  await writeAtomic(
    paths.prs,
    result.records.map((pr) => JSON.stringify(PullRequestRecordSchema.parse(pr)) + '\n').join(''),
  );
  await writeAtomic(paths.edges, result.edges.map((edge) => JSON.stringify(EdgeSchema.parse(edge)) + '\n').join(''));
  await writeAtomic(paths.summary, JSON.stringify(result.summary, null, 2) + '\n');
  await writeChains(opts.out, result.chains);
  // Last: a mine cut short before here is redone whole by the next one, never half-counted as seen.
  const cursor: MineCursor = {
    version: 2,
    options: fingerprint,
    head: tip,
    lastMergedAt: latestMerge(result.records),
    prs: result.records.length,
    minedAt: new Date().toISOString(),
  };
  await writeAtomic(paths.cursor, JSON.stringify(cursor, null, 2) + '\n');
  return result;
}

/**
 * The earlier mine to grow, if any; where it was mined with other options and the caller asked for a
 * fresh mine then, none, and the ids of the chains it held (they are not new).
 */
async function previousMine(
  opts: MineToFilesOptions,
  paths: ReturnType<typeof companionPaths>,
  fingerprint: Record<string, unknown>,
  warn: (message: string) => void,
): Promise<{ previous?: PreviousMine; before?: Set<string> }> {
  if (opts.fresh) return {};
  try {
    return { previous: await readPreviousMine({ chains: opts.out, ...paths }, fingerprint) };
  } catch (error) {
    if (!(error instanceof OptionsChanged) || opts.whenOptionsChange !== 'fresh') throw error;
    warn(`the options changed since the last mine into ${opts.out} (${error.differ}): mined again from scratch`);
    const held = (await stat(opts.out).catch(() => undefined))?.size ? await readChains(opts.out) : [];
    return { before: new Set(held.map((chain) => chain.id)) };
  }
}

/** A rerun over a clone whose branch has not moved: nothing is read, nothing is written. */
function unchanged(previous: PreviousMine): MineResult {
  const none: PatchSource = async () => [];
  return {
    chains: previous.chains,
    edges: previous.edges,
    records: previous.records,
    summary: previous.summary,
    prs: previous.records.length,
    added: [],
    stageable: [],
    patches: none,
    unchangedSince: previous.cursor,
  };
}
