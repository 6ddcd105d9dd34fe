import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { combine } from '../../src/judge/combine';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { testEnvironments } from '../support/environments';
import type { Chain } from '../../src/schemas';
import { demoChain } from '../support/demo-chain';
import { ownSandboxes } from '../support/containers';

const docker = new Docker();
let chain: Chain;
let store: ArtifactStore;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gold-'));
  chain = await demoChain('gold');
  store = new ArtifactStore(join(dir, 'artifacts'));
});

const environments = testEnvironments(docker);
const deps = () => ({ docker, store, sandbox: { memoryMb: 512, pidsLimit: 128 }, environments });

test('gold validation of the demo chain in Docker: the tests each PR makes pass, and those it must keep passing', async () => {
  const [first, second, third] = await Promise.all([0, 1, 2].map((stage) => goldTestsFor(deps(), chain, stage)));
  const t = (name: string) => `tests/test_median.py::${name}`;
  // PR #2 adds median() and its tests: all fail before (median does not exist yet).
  expect(first.failToPass.sort()).toEqual([
    t('test_median_of_odd_length_list'),
    t('test_median_of_single_value'),
    t('test_median_rejects_empty_input'),
  ]);
  expect(first.passToPass).toEqual([]);
  // PR #4 fixes even-length input: one new test, and the three older ones must keep passing.
  expect(second.failToPass).toEqual([t('test_median_of_even_length_list_averages_middle_pair')]);
  expect(second.passToPass).toHaveLength(3);
  expect(third.failToPass).toEqual([t('test_median_with_key_function')]);
  expect(third.passToPass).toHaveLength(4);
  expect(second.command).toMatch(/pytest .*-rpsxXfE tests\/test_median\.py$/);
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);

  // Computed once per PR: a second call comes from the store without touching Docker.
  const again = await goldTestsFor({ ...deps(), docker: {} as Docker }, chain, 1);
  expect(again).toEqual(second);

  // The judge then holds an agent's result to those tests: a regression fails it even with a confident model.
  const regressed = combine(
    {
      command: second.command,
      ran: true,
      passed: false,
      exitCode: 1,
      output: '',
      cases: [
        ...second.failToPass.map((id) => ({ id, outcome: 'passed' as const })),
        ...second.passToPass.map((id, i) => ({ id, outcome: i ? ('passed' as const) : ('failed' as const) })),
      ],
    },
    { score: 1, feedback: '' },
    0.8,
    second,
  );
  expect(regressed).toMatchObject({
    score: 0.375,
    passed: false,
    outcome: { failToPass: { passing: 1, total: 1 }, passToPass: { passing: 2, total: 3 } },
  });
});
