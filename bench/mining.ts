import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildChains } from '../src/mining/chains/chains';
import { wholeMineFigures } from './support/whole-mine';
import { filterPullRequests } from '../src/mining/chains/filters';
import { apiPatches } from '../src/mining/landings/github/api-patches';
import { Octokit } from '@octokit/rest';
import { createGitHubClient, type GitHubClient } from '../src/mining/landings/github/client';
import type { GitHubContext } from '../src/mining/landings/github/context';
import { DiskCache } from '../src/mining/landings/github/disk-cache';
import { listPulls } from '../src/mining/landings/github/list-pulls';
import { mineGitHub } from '../src/mining/landings/github/mine-github';
import { restDetail } from '../src/mining/landings/github/rest-details';
import { readLocalPullRequests } from '../src/mining/landings/local-git';
import { withLocalPatches } from '../src/mining/landings/local-patches';
import { recordsToChains } from '../src/mining/pipeline';
import { linkPullRequests } from '../src/mining/links/references';
import { bundlePath, cloneBundle } from '../test/support/real-repos';
import { busyPulls, timeOutHeavyBatches } from '../test/mining/busy-pulls';
import { fakeRepoFromClone } from '../test/mining/github-fixtures';
import { syntheticHistory } from '../test/mining/synthetic-history';
import { syntheticRecords } from '../test/mining/synthetic-records';
import { FakeGitHub } from '../test/support/fake-github';
import type { Figure } from './figure';

const HISTORY_PRS = 24_000; // every sixth squashed: 20,000 merges
const GRAPH_PRS = 60_000;
const REAL = ['pallets+jinja', 'serde-rs+json', 'spf13+cobra', 'jhy+jsoup', 'DaveGamble+cJSON'];

const say = (line: string) => console.error(`[mining] ${line}`);

/**
 * The mining figures, all measured in this one run:
 * - requests and GraphQL points per mined PR against a fake GitHub API (real HTTP on 127.0.0.1, real
 *   Octokit) serving the five bundled repositories' real PRs with a long tail added (discussions past
 *   one page, PRs with hundreds of files, 502s on heavy batches), for the batched and cached miner
 *   next to a naive per-PR REST walk;
 * - how fast a local clone's history is read and the reader's peak memory, on the five real
 *   histories and on a synthetic one with 20,000 PR merges;
 * - how long linking and chain extraction take for 60k PRs;
 * - a whole `chainsmith mine` of each bundled repository (history, patches, links, blame, chains, files
 *   written), in a process of its own: its seconds per 1,000 PRs and its peak RSS.
 * CHAINSMITH_BENCH_ONLY=github,history,graph,mine runs some of them.
 */
export async function run(): Promise<Figure[]> {
  const only = process.env.CHAINSMITH_BENCH_ONLY?.split(',');
  const want = (section: string) => !only || only.includes(section);
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bench-mining-'));
  try {
    return [
      ...(want('github') ? await requestFigures(root) : []),
      ...(want('history') ? await parsingFigures(root) : []),
      ...(want('graph') ? [graphFigure()] : []),
      ...(want('mine') ? await wholeMineFigures(root) : []),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

interface Tally {
  prs: number;
  members: number;
  requests: number;
  points: number;
}

const add = (a: Tally, b: Tally): Tally => ({
  prs: a.prs + b.prs,
  members: a.members + b.members,
  requests: a.requests + b.requests,
  points: a.points + b.points,
});
const none: Tally = { prs: 0, members: 0, requests: 0, points: 0 };

async function requestFigures(root: string): Promise<Figure[]> {
  let [withClone, rerun, apiOnly, naive] = [none, none, none, none];
  const mixes: string[] = [];
  for (const bundle of REAL.filter((name) => bundlePath(name))) {
    const clone = await cloneBundle(bundle);
    const [owner, name] = bundle.split('+');
    const repo = await fakeRepoFromClone(owner, name, clone);
    const mix = busyPulls(repo);
    mixes.push(
      `${name} ${mix.prs} PRs (${mix.commentsPastOnePage}/${mix.reviewsPastOnePage}/${mix.reviewCommentsPastOnePage}/${mix.filesPastOnePage}/${mix.hundredsOfFiles.length})`,
    );
    // The naive walk needs several requests a PR: more than a token's hourly 5,000, so this fake is generous.
    const fake = new FakeGitHub([repo], { limits: { core: 1e6, graphql: 1e6 } });
    timeOutHeavyBatches(fake, mix.hundredsOfFiles);
    const baseUrl = await fake.start();
    try {
      // Only requests are counted here, so GitHub's one-second spacing of GraphQL queries is shortened.
      const client = createGitHubClient({ baseUrl, token: 'bench-token', secondMs: 1 });
      const mine = async (cacheDir: string, patchesFromClone: boolean): Promise<Tally> => {
        const [requests, points] = [fake.count(), fake.points()];
        const mined = await mineGitHub({ repo: `${owner}/${name}`, client, baseUrl, hasToken: true, cacheDir });
        const patches = patchesFromClone
          ? (prs: Parameters<typeof apiPatches>[1]) => withLocalPatches(clone, [...prs])
          : (prs: Parameters<typeof apiPatches>[1]) => apiPatches(mined.context, prs);
        const { chains } = await recordsToChains({ name: `${owner}/${name}`, path: clone }, mined.prs, patches, {
          repo: `${owner}/${name}`,
          pullNumbers: mined.pullNumbers,
        });
        const members = new Set(chains.flatMap((c) => c.prs.map((pr) => pr.number))).size;
        return { prs: mined.prs.length, members, requests: fake.count() - requests, points: fake.points() - points };
      };
      const first = await mine(join(root, `${name}-clone`), true);
      withClone = add(withClone, first);
      rerun = add(rerun, await mine(join(root, `${name}-clone`), true));
      apiOnly = add(apiOnly, await mine(join(root, `${name}-api`), false));
      naive = add(naive, await naiveWalk(fake, baseUrl, owner, name, join(root, `${name}-naive`)));
      say(
        `${owner}/${name}: ${first.prs} merged PRs, ${first.members} in chains; ${first.requests} requests, ${first.points} GraphQL points`,
      );
    } finally {
      await fake.stop();
    }
  }
  const input = `${withClone.prs} merged PRs of the five bundled repositories with a long tail added: ${mixes.join(', ')} (comments / reviews / review comments / files past one page, hundreds of files); batches with a PR of 300+ files answer 502`;
  say(input);
  say(
    `requests: batched ${withClone.requests}, rerun ${rerun.requests}, patches via API ${apiOnly.requests}, naive ${naive.requests}; points: batched ${withClone.points}`,
  );
  return [
    {
      measure: 'requests_per_pr',
      value: round(withClone.requests / withClone.prs, 4),
      unit: 'requests/PR',
      goal: `<= 0.1 (token + --clone; first run, empty cache; ${input})`,
    },
    {
      measure: 'graphql_points_per_pr',
      value: round(withClone.points / withClone.prs, 4),
      unit: 'points/PR',
      goal: "<= 1 (GitHub's formula: connection requests summed over the query, / 100, rounded, at least 1 a query; a 502 counted as 1)",
    },
    {
      measure: 'requests_per_pr_rerun',
      value: round(rerun.requests / rerun.prs, 4),
      unit: 'requests/PR',
      goal: '0 (rerun within the cache TTL)',
    },
    {
      measure: 'requests_per_pr_api_patches',
      value: round(apiOnly.requests / apiOnly.prs, 4),
      unit: 'requests/PR',
      goal: `one compare request per chain member (${apiOnly.members} of ${apiOnly.prs} PRs here)`,
    },
    {
      measure: 'requests_per_pr_naive_rest',
      value: round(naive.requests / naive.prs, 4),
      unit: 'requests/PR',
      goal: 'baseline: a per-PR REST walk of the same PRs',
    },
  ];
}

/** The walk a first attempt makes: list, then per merged PR its files, commits, merge commit, comments, reviews and diff. */
async function naiveWalk(
  fake: FakeGitHub,
  baseUrl: string,
  owner: string,
  name: string,
  cacheDir: string,
): Promise<Tally> {
  const before = fake.count();
  const ctx: GitHubContext = {
    // Only its requests are counted; without the politeness plugins, whose scheduling costs ~15 ms a
    // request on loopback, its 7,000 requests take seconds instead of minutes.
    client: new Octokit({ baseUrl, auth: 'bench-token' }) as unknown as GitHubClient,
    owner,
    name,
    baseUrl,
    hasToken: true,
    cache: new DiskCache(cacheDir),
    now: Date.now,
  };
  const merged = (await listPulls(ctx, { ttlMs: 0 })).filter((item) => item.merged_at);
  for (const item of merged) {
    const detail = await restDetail(ctx, item, { comments: true });
    const merge = detail.mergeCommit!;
    const record = {
      number: item.number,
      title: item.title,
      body: '',
      messages: [],
      author: 'x',
      mergedAt: item.merged_at!,
      landing: 'api' as const,
      baseSha: merge.parents[0],
      mergeSha: merge.oid,
      files: [],
    };
    await apiPatches(ctx, [record]);
  }
  return { prs: merged.length, members: 0, requests: fake.count() - before, points: 0 };
}

async function parsingFigures(root: string): Promise<Figure[]> {
  const real = { commits: 0, seconds: 0, cpuSeconds: 0, peakMb: 0 };
  const each: string[] = [];
  for (const bundle of REAL.filter((name) => bundlePath(name))) {
    const read = await readInChild(await cloneBundle(bundle));
    real.commits += read.commits;
    real.seconds += read.seconds;
    real.cpuSeconds += read.cpuSeconds;
    real.peakMb = Math.max(real.peakMb, read.peakMb);
    each.push(`${bundle.split('+')[1]} ${Math.round(read.commits / read.seconds)}`);
    say(
      `${bundle}: ${read.commits} commits, ${read.prs} PRs in ${round(read.seconds, 3)} s (CPU ${round(read.cpuSeconds, 3)} s, git's included); reader's peak RSS ${round(read.peakMb, 1)} MiB; ${loadAverage()}`,
    );
  }
  const path = join(root, 'history');
  const started = performance.now();
  await syntheticHistory(HISTORY_PRS, { squashEvery: 6 }).write(path);
  say(`generated ${HISTORY_PRS} PRs in ${round((performance.now() - started) / 1000, 1)}s`);
  const big = await readInChild(path);
  say(
    `synthetic: read ${big.commits} commits, ${big.prs} PRs (${big.merges} merges) in ${round(big.seconds, 2)}s; reader's peak RSS ${round(big.peakMb, 1)} MiB`,
  );
  return [
    {
      measure: 'commits_per_second_real',
      value: Math.round(real.commits / real.seconds),
      unit: 'commits/s',
      goal: `>= 10000 reading the history only: blame, patches and linking are not in it (mine_seconds_per_1000_prs_* are) (${real.commits} commits of the five bundled repositories, commits/s each: ${each.join(', ')})`,
    },
    {
      measure: 'commits_per_cpu_second_real',
      value: Math.round(real.commits / real.cpuSeconds),
      unit: 'commits/s',
      goal: `context: the same reads per CPU second of the reader and its git processes, which other users' load moves less than wall time (${loadAverage()})`,
    },
    {
      measure: 'history_peak_rss_mb_real',
      value: round(real.peakMb, 1),
      unit: 'MiB',
      goal: 'context: the largest peak RSS of the Node process reading one real history (git itself not counted)',
    },
    {
      measure: 'commits_per_second',
      value: Math.round(big.commits / big.seconds),
      unit: 'commits/s',
      goal: `>= 10000 (synthetic scale test: ${big.commits} commits, ${big.merges} PR merges)`,
    },
    {
      measure: 'history_peak_rss_mb',
      value: round(big.peakMb, 1),
      unit: 'MiB',
      goal: `context: peak RSS of the Node process reading the synthetic history (${big.commits} commits)`,
    },
  ];
}

interface HistoryRead {
  commits: number;
  prs: number;
  merges: number;
  seconds: number;
  /** CPU of the reader and of the git processes it waited for. */
  cpuSeconds: number;
  peakMb: number;
}

/** Reads a clone's history twice (the first warms the page cache, as a second mine finds it) in a process of its own, so its peak RSS is the reader's alone. */
function readInChild(path: string): Promise<HistoryRead> {
  const child = fork(__filename, [READ_HISTORY, path], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (read) => resolve(read as HistoryRead));
    child.once('exit', (code) => reject(new Error(`reading ${path} failed (exit ${code})`)));
  });
}

const READ_HISTORY = '--read-history';

async function readHistory(path: string): Promise<void> {
  await readLocalPullRequests(path);
  const [started, cpu0] = [performance.now(), cpuSecondsWithChildren()];
  const mined = await readLocalPullRequests(path);
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = cpuSecondsWithChildren() - cpu0;
  const merges = mined.prs.filter((pr) => pr.landing === 'merge').length;
  const read: HistoryRead = {
    commits: mined.commits,
    prs: mined.prs.length,
    merges,
    seconds,
    cpuSeconds,
    peakMb: process.resourceUsage().maxRSS / 1024,
  };
  process.send!(read, () => process.exit(0));
}

/** This process's CPU and its reaped children's (utime, stime, cutime, cstime of /proc/self/stat), in seconds. */
function cpuSecondsWithChildren(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (
    fields
      .slice(11, 15)
      .map(Number)
      .reduce((a, b) => a + b, 0) / 100
  );
}

const loadAverage = () =>
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')} on ${availableParallelism()} cores`;

function graphFigure(): Figure {
  const prs = syntheticRecords(GRAPH_PRS);
  const started = performance.now();
  const { edges } = linkPullRequests(prs, { repo: 'bench/big' });
  const { kept } = filterPullRequests(prs);
  const chains = buildChains({ name: 'bench/big', path: '/nowhere' }, kept, edges);
  const seconds = (performance.now() - started) / 1000;
  say(`${GRAPH_PRS} PRs: ${edges.length} edges, ${chains.length} chains in ${round(seconds, 2)}s`);
  return {
    measure: 'graph_seconds_60k',
    value: round(seconds, 2),
    unit: 's',
    goal: `< 60 (${edges.length} edges, ${chains.length} chains)`,
  };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

if (require.main === module && process.argv[2] === READ_HISTORY) {
  readHistory(process.argv[3]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
