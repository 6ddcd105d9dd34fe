// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalPullRequests, type LocalMineResult } from '../../src/mining/landings/local-git';
import { withLocalPatches } from '../../src/mining/landings/local-patches';
import { recordsToChains, type PipelineOptions } from '../../src/mining/pipeline';
import { PLUGIN_STEPS, widgetsStory } from './story';

let root: string;
const mined: Record<string, { path: string; result: LocalMineResult }> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-story-'));
  for (const style of ['merge', 'squash'] as const) {
    const path = join(root, style);
    await widgetsStory(style).write(path);
    mined[style] = { path, result: await readLocalPullRequests(path) };
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const chainsOf = async (style: string, opts: PipelineOptions = {}) => {
  const { path, result } = mined[style];
  return recordsToChains({ name: 'acme/widgets', path }, result.prs, (prs) => withLocalPatches(path, prs), {
    repo: 'acme/widgets',
    pullNumbers: result.pullNumbers,
    ...opts,
  });
};

describe.each(['merge', 'squash'])('a %s history', (style) => {
  test('every landed PR is found, with its own commits', () => {
    const { prs } = mined[style].result;
    expect(prs.map((pr) => pr.number)).toEqual([2, 4, 5, 6, 7, 8, 9, 10, 11, 40, 41, 42, ...PLUGIN_STEPS]);
    expect(new Set(prs.map((pr) => pr.landing))).toEqual(new Set([style]));
    const five = prs.find((pr) => pr.number === 5)!;
    expect(five.title).toBe('Expire cache entries on write');
    expect(five.commitShas).toHaveLength(2);
    expect(five.messages.slice(1)).toEqual([
      'Expire entries on write',
      'Add a test\n\nFollow-up to #4: the TTL is now enforced on write too.',
    ]);
  });

  test('references become typed edges between PRs; issues and other repositories do not', async () => {
    const { edges, summary } = await chainsOf(style);
    const typed = edges.filter((edge) => edge.from < 50).map(({ from, to, kind }) => `${from}->${to} ${kind}`);
    expect(typed).toEqual([
      '4->2 regression-of',
      '5->4 follow-up',
      '6->5 reverts',
      '7->5 restores',
      '8->2 mentions',
      // #9 is dependabot's: only a bot's title links, not its commit ("Bump pytest, as #2 needs").
      '10->7 mentions',
      '11->10 fixes',
      '41->40 reverts',
      '42->41 reverts',
    ]);
    // "Fixes #3" names an issue; "other/lib#12" another repository: counted, never linked.
    expect(summary.references.issue).toBe(1);
    expect(summary.references.otherRepo).toBe(1);
    expect(summary.edgesByKind['follow-up']).toBe(1 + PLUGIN_STEPS.length - 1);
  });

  test('chains: paths in dependency order, bots and docs-only PRs left out, long runs cut at the cap', async () => {
    const { chains, summary } = await chainsOf(style);
    // #6 reverts #5 and #7 restores #5: two branches of one history, so two chains share 2-4-5.
    expect(chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([
      [2, 4, 5, 6],
      [2, 4, 5, 7],
      [40, 41, 42],
      PLUGIN_STEPS.slice(0, 5),
      PLUGIN_STEPS.slice(4, 9),
      PLUGIN_STEPS.slice(7),
    ]);
    expect(summary.dropped).toEqual({ bot: 1, 'no-code': 1, oversized: 0 });
    expect(summary.chainsByLength).toEqual({ 3: 1, 4: 2, 5: 3 });
    expect(chains[0].score).toBeCloseTo((0.95 + 0.9 + 0.95) / 3, 3);
  });

  test('a weak link (#11 only fixes the test of #10) joins chains only with --min-strength weak, and makes the chain weak', async () => {
    const { edges } = await chainsOf(style);
    expect(edges.find((edge) => edge.from === 11)).toMatchObject({
      to: 10,
      kind: 'fixes',
      strength: 'weak',
      strengthWhy: '#11 changes only tests or docs',
    });
    const { chains, summary } = await chainsOf(style, { minStrength: 'weak' });
    expect(chains.filter((chain) => chain.strength === 'weak').map((chain) => chain.id)).toEqual([
      'acme/widgets#10-11',
    ]);
    expect(summary.chainsByStrength).toEqual({ strong: 6, weak: 1 });
  });

  test('a cap of 10 keeps ten stages in one chain', async () => {
    const { chains } = await chainsOf(style, { maxLength: 10 });
    const plugin = chains.filter((chain) => chain.prs[0].number >= 50).map((chain) => chain.prs.length);
    expect(plugin).toEqual([10, 10]);
  });

  test('chain members carry their patch, split into code and test parts', async () => {
    const { chains } = await chainsOf(style);
    const two = chains[0].prs[0];
    expect(two.patch).toContain('diff --git a/widgets/cache.py b/widgets/cache.py');
    expect(two.codePatch).toContain('widgets/cache.py');
    expect(two.codePatch).not.toContain('tests/test_cache.py');
    expect(two.testPatch).toMatch(/^diff --git a\/tests\/test_cache.py b\/tests\/test_cache.py/);
    expect(two.codePatch!.length + two.testPatch!.length).toBe(two.patch.length);
  });
});

test('merge and squash histories of the same story mine to the same graph', async () => {
  const pairs = async (style: string) => (await chainsOf(style)).edges.map(({ from, to, kind }) => [from, to, kind]);
  expect(await pairs('squash')).toEqual(await pairs('merge'));
});
