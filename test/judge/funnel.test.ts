import { formatFunnel, funnel } from '../../src/judge/funnel';
import type { Chain, GoldTests, StageReasonKind } from '../../src/schemas';
import { NO_TEST_FILES } from '../../src/judge/unverified-reason';

const env = { image: 'chainsmith-env:x', language: 'python', origin: 'python-package', toolchain: 'Python 3.11.2' };
const chain = (id: string, stages: number): Chain =>
  ({
    id,
    repo: { name: 'acme/x', path: '/x' },
    prs: Array.from({ length: stages }, (_, i) => ({ number: i + 1 })),
  }) as unknown as Chain;
const verified = (): GoldTests => ({
  command: 'pytest',
  failToPass: ['t'],
  passToPass: [],
  brokenOnGold: [],
  status: 'verified',
  environment: env,
  repo: 'acme/x',
});
const failed = (kind: StageReasonKind, built = true): GoldTests => ({
  command: 'pytest',
  failToPass: [],
  passToPass: [],
  brokenOnGold: [],
  status: built ? 'no-verifying-test' : 'invalid',
  reason: { kind, summary: kind },
  ...(built ? { environment: env } : {}),
  repo: 'acme/x',
});

/**
 * Each step counts the stages that reached it: a build that failed has no environment, a hung test
 * run built one but ran no test to the end, a flaky stage had a verifying test and lost it on reruns.
 * A chain is cut at its first stage short of stable.
 */
test('the funnel counts each stage at the last step it reached and cuts each chain at its first unstable stage', () => {
  const chains = [chain('a', 3), chain('b', 2), chain('c', 1), chain('d', 1)];
  // A PR that changes no test gets no environment: it falls off first.
  const noTests: GoldTests = {
    ...failed('no-verifying-test'),
    reason: { kind: 'no-verifying-test', summary: NO_TEST_FILES },
    environment: { ...env, image: '' },
  };
  const records = [
    verified(),
    failed('flaky'),
    verified(),
    failed('build-failed', false),
    verified(),
    failed('timeout'),
    noTests,
  ];
  const [row] = funnel(chains, records);
  expect(row).toMatchObject({
    repo: 'acme/x',
    language: 'python',
    stages: 7,
    withTests: 6,
    environmentBuilt: 5,
    testsRunnable: 4,
    verifyingTest: 4,
    stable: 3,
    chains: 4,
    chainsWhole: 0,
  });
  expect(row.cutAt).toEqual({ 1: { 'build-failed': 1, timeout: 1, 'no-verifying-test': 1 }, 2: { flaky: 1 } });
  expect(formatFunnel([row]).split('\n')).toEqual([
    'repository  language  stages  with tests  environment built  tests runnable  verifying test  stable  yield',
    'acme/x      python    7       6           5                  4               4               3       43%',
    'acme/x (python):',
    '  chains: 4; every stage verified: 0; cut at stage 1: 3 (build-failed 1, no-verifying-test 1, timeout 1); cut at stage 2: 1 (flaky 1)',
    '  stages not verified: 4 (build-failed 1, no-verifying-test 1, flaky 1, timeout 1)',
  ]);
});

/**
 * A stage whose environment built and whose tests ran into what it lacks (a package no registry
 * served, a submodule the host could not fetch, a toolchain that cannot read the code) ran no test.
 */
test('a built environment whose tests lacked a dependency or a toolchain counts as built, not as tests that ran', () => {
  const [row] = funnel([chain('e', 3)], [verified(), failed('dependencies-unresolvable'), failed('unsupported')]);
  expect(row).toMatchObject({ environmentBuilt: 3, testsRunnable: 1, verifyingTest: 1 });
});
