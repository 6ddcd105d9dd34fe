// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoRepo } from '../../../src/demo/generate-repo';
import { buildChains } from '../../../src/mining/chains/chains';
import type { Edge } from '../../../src/schemas';
import { makePr } from '../make-pr';
import { extractEdges, mineLocalRepo } from '../../support/mining';

const repo = { name: 'acme/widgets', path: '/repos/widgets' };
const edge = (from: number, to: number): Edge => ({ from, to, kind: 'follow-up', evidence: '', confidence: 0.9 });

test('the demo has one chain, #2 → #4 → #6', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-chains-'));
  try {
    const { path } = await generateDemoRepo(join(root, 'tally'));
    const prs = await mineLocalRepo(path);
    const chains = buildChains({ name: 'demo/tally', path }, prs, extractEdges(prs));
    expect(chains.map((chain) => chain.id)).toEqual(['demo/tally#2-4-6']);
    expect(chains[0].prs.map((pr) => pr.number)).toEqual([2, 4, 6]);
    expect(chains[0].edges.map(({ from, to }) => [from, to])).toEqual([
      [4, 2],
      [6, 4],
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('dependencies order a chain even against merge time', () => {
  // #30 landed first but says it builds on #31 (a backport, say).
  const prs = [
    makePr(30, { mergedAt: '2024-01-01T00:00:00.000Z' }),
    makePr(31, { mergedAt: '2024-02-01T00:00:00.000Z' }),
  ];
  const [chain] = buildChains(repo, prs, [edge(30, 31)]);
  expect(chain.prs.map((pr) => pr.number)).toEqual([31, 30]);
});

test('consecutive PRs are always linked: a chain is a path, not a cluster; a cycle goes by merge time', () => {
  const prs = [makePr(1), makePr(2), makePr(3), makePr(4)];
  // #2 and #3 both build on #1 but not on each other: two chains share #1.
  expect(buildChains(repo, prs, [edge(3, 1), edge(2, 1), edge(4, 3)]).map((chain) => chain.id)).toEqual([
    'acme/widgets#1-2',
    'acme/widgets#1-3-4',
  ]);
  expect(buildChains(repo, prs, [edge(1, 2), edge(2, 1)]).map((chain) => chain.id)).toEqual(['acme/widgets#1-2']);
});

test('a run longer than the cap becomes overlapping chains, each with only the edges among its PRs', () => {
  const prs = [1, 2, 3, 4, 5, 6, 7].map((n) => makePr(n));
  const edges = [2, 3, 4, 5, 6, 7].map((n) => edge(n, n - 1));
  const chains = buildChains(repo, prs, edges);
  expect(chains.map((chain) => chain.id)).toEqual(['acme/widgets#1-2-3-4-5', 'acme/widgets#3-4-5-6-7']);
  expect(chains[0].edges).toHaveLength(4);
  expect(buildChains(repo, prs, edges, { maxLength: 3 }).map((chain) => chain.id)).toEqual([
    'acme/widgets#1-2-3',
    'acme/widgets#3-4-5',
    'acme/widgets#5-6-7',
  ]);
});

test('a much-linked PR joins three chains by default, and as many as allowed', () => {
  const prs = [1, 2, 3, 4, 5, 6, 7].map((n) => makePr(n));
  const edges = [2, 3, 4, 5, 6, 7].map((n) => edge(n, 1));
  expect(buildChains(repo, prs, edges).map((chain) => chain.id)).toEqual([
    'acme/widgets#1-2',
    'acme/widgets#1-3',
    'acme/widgets#1-4',
  ]);
  expect(buildChains(repo, prs, edges, { maxChainsPerPr: 1 }).map((chain) => chain.id)).toEqual(['acme/widgets#1-2']);
  expect(buildChains(repo, prs, edges, { maxChainsPerPr: 6 })).toHaveLength(6);
});

test('the strongest link grows a chain first; the score is the mean of the links used', () => {
  const prs = [1, 2, 3].map((n) => makePr(n));
  const weak: Edge = { ...edge(2, 1), kind: 'mentions', confidence: 0.5 };
  const strong: Edge = { ...edge(3, 1), kind: 'reverts', confidence: 0.95 };
  const [chain] = buildChains(repo, prs, [weak, strong], { maxLength: 2 });
  expect(chain.id).toBe('acme/widgets#1-3');
  expect(chain.score).toBe(0.95);
  // A plain mention (0.5) is below the default 0.6 and links nothing unless asked.
  expect(buildChains(repo, prs, [weak, strong]).map((c) => c.id)).toEqual(['acme/widgets#1-3']);
  expect(
    buildChains(repo, prs, [weak, { ...strong, from: 3, to: 2 }], { minConfidence: 0.5 }).map((c) => [c.id, c.score]),
  ).toEqual([['acme/widgets#1-2-3', 0.725]]);
});
