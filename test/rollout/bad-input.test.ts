import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChains } from '../../src/batches/start';
import { CONTAINER_LABEL } from '../../src/container/docker-container';
import type { Chain } from '../../src/schemas';
import { startEngines, testConfig } from '../support/engines';
import { pythonChain } from '../support/python-chain';
import type { ChainResult } from '../../src/workflows/types';

test('bad input stops its chain before the broken stage with a clear reason; earlier stages and other chains are unaffected', async () => {
  const { chain } = await pythonChain(join(await mkdtemp(join(tmpdir(), 'chainsmith-bad-')), 'shapes'), 'x/shapes');
  const run = `bad-${Date.now()}`;
  const [pr1, pr2] = chain.prs;
  const named = (name: string, prs = [pr1, pr2]): Chain => ({
    ...chain,
    id: `${run}/${name}`,
    repo: { ...chain.repo, name: `${run}/${name}` },
    prs,
  });
  const chains = [
    named('good'),
    named('recipe'),
    named('missing-base', [pr1, { ...pr2, baseSha: 'deadbeef'.repeat(5) }]),
    named('bad-patch', [
      pr1,
      { ...pr2, patch: pr2.patch.replace('-    return side * side', '-    return side + side') },
    ]),
    named('binary', [
      {
        ...pr1,
        patch: `${pr1.patch}diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\nBinary files a/logo.png and b/logo.png differ\n`,
      },
      pr2,
    ]),
  ];
  const config = testConfig();
  config.environments.repos[`${run}/recipe`] = {
    setup: ['python3 -m pip install --no-index --quiet definitely-not-installed'],
  };
  const engines = await startEngines(config);
  try {
    const started = await startChains(engines.client, config, chains, {
      policy: 'gold-replay',
      taskQueue: engines.taskQueue,
    });
    const all = Promise.all(started.map((s) => s.handle.result()));
    await Promise.all(engines.workers.map((w) => w.runUntil(all)));
    const [good, recipe, missingBase, badPatch, binary]: ChainResult[] = await all;

    // #2 has no FAIL_TO_PASS test and gold replay has no judge model: every chain here stops before it.
    expect(good).toMatchObject({
      status: 'accepted',
      cut: { before: 1, reason: expect.stringMatching(/^stage 2 \(PR #2\) cannot be judged: no test of the PR/) },
    });
    expect(good.results.map((s) => s.status)).toEqual(['accepted']);

    expect(recipe.status).toBe('skipped');
    expect(recipe.reason).toMatch(
      new RegExp(
        `^stage 1 \\(PR #1\\) cannot be judged: build-failed: the environment recipe of ${run}/recipe \\(config\\) failed to build at [0-9a-f]{12} \\(exit code 1\\)`,
      ),
    );
    // The whole reason, typed: the failing command, its exit code and the end of its output.
    expect(recipe.unjudgeable).toMatchObject({
      stage: 0,
      prNumber: 1,
      reason: {
        kind: 'build-failed',
        exitCode: 1,
        command: expect.stringContaining('definitely-not-installed'),
        tail: expect.stringContaining('definitely-not-installed'),
      },
    });
    expect(recipe.results).toEqual([]);

    for (const [result, why] of [
      [
        missingBase,
        /^stage 2 \(PR #2\) cannot be judged: invalid-inputs: the base commit deadbeef(deadbeef){4} of PR #2 does not exist in /,
      ],
      [
        badPatch,
        /^stage 2 \(PR #2\) cannot be judged: invalid-inputs: the gold patch of PR #2 does not apply to its base [0-9a-f]{12}/,
      ],
    ] as const) {
      // The stage before the broken one still runs and is accepted on its own.
      expect(result.status).toBe('accepted');
      expect(result.cut?.reason).toMatch(why);
      expect(result.results.map((s) => s.status)).toEqual(['accepted']);
    }
    expect(binary.status).toBe('skipped');
    expect(binary.reason).toMatch(
      /^stage 1 \(PR #1\) cannot be judged: invalid-inputs: the gold patch of PR #1 changes the binary file logo\.png without its content/,
    );
    expect(
      await new Docker()
        .listContainers({ all: true, filters: { label: [CONTAINER_LABEL] } })
        .then((cs) => cs.filter((c) => (c.Labels['chainsmith.run'] ?? '').includes(run))),
    ).toHaveLength(0);
  } finally {
    await engines.close();
  }
});
