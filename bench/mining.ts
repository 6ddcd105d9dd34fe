import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildChains } from '../src/mining/chains';
import { filterPullRequests } from '../src/mining/filters';
import { apiPatches } from '../src/mining/github/api-patches';
import { Octokit } from '@octokit/rest';
import { createGitHubClient, type GitHubClient } from '../src/mining/github/client';
import type { GitHubContext } from '../src/mining/github/context';
import { DiskCache } from '../src/mining/github/disk-cache';
import { listPulls } from '../src/mining/github/list-pulls';
import { mineGitHub } from '../src/mining/github/mine-github';
import { restDetail } from '../src/mining/github/rest-details';
import { readLocalPullRequests } from '../src/mining/local-git';
import { withLocalPatches } from '../src/mining/local-patches';
import { recordsToChains } from '../src/mining/pipeline';
import { linkPullRequests } from '../src/mining/references';
import { fakeRepoFromClone } from '../test/mining/github-fixtures';
import { syntheticHistory } from '../test/mining/synthetic-history';
import { syntheticRecords } from '../test/mining/synthetic-records';
import { FakeGitHub } from '../test/support/fake-github';
import type { Figure } from './figure';

const API_PRS = 1_000;
const HISTORY_PRS = 24_000; // every sixth squashed: 20,000 merges
const GRAPH_PRS = 60_000;

const say = (line: string) => console.error(`[mining] ${line}`);

/**
 * The mining figures, all measured in this one run:
 * - requests per mined PR against a fake GitHub API (real HTTP on 127.0.0.1, real Octokit), for the
 *   batched and cached miner next to a naive per-PR REST walk;
 * - how fast a local clone's history is read (commits per second, ≥20k PR merges);
 * - how long linking and chain extraction take for 60k PRs.
 */
export async function run(): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bench-mining-'));
  try {
    return [...(await requestFigures(root)), await parsingFigure(root), graphFigure()];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function requestFigures(root: string): Promise<Figure[]> {
  const clone = join(root, 'api-repo');
  await syntheticHistory(API_PRS).write(clone);
  // The naive walk needs ~7,000 requests: more than a token's hourly 5,000, so this fake is generous.
  const fake = new FakeGitHub([await fakeRepoFromClone('bench', 'repo', clone)], { limits: { core: 1e6, graphql: 1e6 } });
  const baseUrl = await fake.start();
  try {
    // Only requests are counted here, so GitHub's one-second spacing of GraphQL queries is shortened.
    const client = createGitHubClient({ baseUrl, token: 'bench-token', secondMs: 1 });
    const mine = async (cacheDir: string, withClone: boolean) => {
      const before = fake.count();
      const mined = await mineGitHub({ repo: 'bench/repo', client, baseUrl, hasToken: true, cacheDir });
      const patches = withClone ? (prs: Parameters<typeof apiPatches>[1]) => withLocalPatches(clone, [...prs]) : (prs: Parameters<typeof apiPatches>[1]) => apiPatches(mined.context, prs);
      const { chains } = await recordsToChains({ name: 'bench/repo', path: clone }, mined.prs, patches, { repo: 'bench/repo', pullNumbers: mined.pullNumbers });
      const members = new Set(chains.flatMap((c) => c.prs.map((pr) => pr.number))).size;
      return { prs: mined.prs.length, members, requests: fake.count() - before };
    };
    const withClone = await mine(join(root, 'cache-clone'), true);
    const rerun = await mine(join(root, 'cache-clone'), true);
    const apiOnly = await mine(join(root, 'cache-api'), false);
    const naive = await naiveWalk(fake, baseUrl, join(root, 'cache-naive'));
    say(`${withClone.prs} merged PRs, ${withClone.members} in chains; requests: batched ${withClone.requests}, rerun ${rerun.requests}, patches via API ${apiOnly.requests}, naive ${naive.requests}`);
    return [
      { measure: 'requests_per_pr', value: round(withClone.requests / withClone.prs, 4), unit: 'requests/PR', goal: '<= 0.1 (token + --clone; first run, empty cache)' },
      { measure: 'requests_per_pr_rerun', value: round(rerun.requests / rerun.prs, 4), unit: 'requests/PR', goal: '0 (rerun within the cache TTL)' },
      { measure: 'requests_per_pr_api_patches', value: round(apiOnly.requests / apiOnly.prs, 4), unit: 'requests/PR', goal: `one compare request per chain member (${apiOnly.members} of ${apiOnly.prs} PRs here)` },
      { measure: 'requests_per_pr_naive_rest', value: round(naive.requests / naive.prs, 4), unit: 'requests/PR', goal: 'baseline: a per-PR REST walk' },
    ];
  } finally {
    await fake.stop();
  }
}

/** The walk a first attempt makes: list, then per merged PR its files, commits, merge commit, comments, reviews and diff. */
async function naiveWalk(fake: FakeGitHub, baseUrl: string, cacheDir: string): Promise<{ prs: number; requests: number }> {
  const before = fake.count();
  const ctx: GitHubContext = {
    // Only its requests are counted; without the politeness plugins, whose scheduling costs ~15 ms a
    // request on loopback, its 7,000 requests take seconds instead of minutes.
    client: new Octokit({ baseUrl, auth: 'bench-token' }) as unknown as GitHubClient,
    owner: 'bench',
    name: 'repo',
    baseUrl,
    hasToken: true,
    cache: new DiskCache(cacheDir),
    now: Date.now,
  };
  const merged = (await listPulls(ctx, { ttlMs: 0 })).filter((item) => item.merged_at);
  for (const item of merged) {
    const detail = await restDetail(ctx, item, { comments: true });
    const merge = detail.mergeCommit!;
    const record = { number: item.number, title: item.title, body: '', messages: [], author: 'x', mergedAt: item.merged_at!, landing: 'api' as const, baseSha: merge.parents[0], mergeSha: merge.oid, files: [] };
    await apiPatches(ctx, [record]);
  }
  return { prs: merged.length, requests: fake.count() - before };
}

async function parsingFigure(root: string): Promise<Figure> {
  const path = join(root, 'history');
  let started = performance.now();
  await syntheticHistory(HISTORY_PRS, { squashEvery: 6 }).write(path);
  say(`generated ${HISTORY_PRS} PRs in ${round((performance.now() - started) / 1000, 1)}s`);
  await readLocalPullRequests(path); // warms the page cache, as a second mine of a clone would find it
  started = performance.now();
  const mined = await readLocalPullRequests(path);
  const seconds = (performance.now() - started) / 1000;
  const merges = mined.prs.filter((pr) => pr.landing === 'merge').length;
  say(`read ${mined.commits} commits, ${mined.prs.length} PRs (${merges} merges) in ${round(seconds, 2)}s`);
  return { measure: 'commits_per_second', value: Math.round(mined.commits / seconds), unit: 'commits/s', goal: `>= 10000 (${mined.commits} commits, ${merges} PR merges)` };
}

function graphFigure(): Figure {
  const prs = syntheticRecords(GRAPH_PRS);
  const started = performance.now();
  const { edges } = linkPullRequests(prs, { repo: 'bench/big' });
  const { kept } = filterPullRequests(prs);
  const chains = buildChains({ name: 'bench/big', path: '/nowhere' }, kept, edges);
  const seconds = (performance.now() - started) / 1000;
  say(`${GRAPH_PRS} PRs: ${edges.length} edges, ${chains.length} chains in ${round(seconds, 2)}s`);
  return { measure: 'graph_seconds_60k', value: round(seconds, 2), unit: 's', goal: `< 60 (${edges.length} edges, ${chains.length} chains)` };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
