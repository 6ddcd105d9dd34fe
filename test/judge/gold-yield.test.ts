import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { StageError } from '../../src/errors';
import { goldTestsFor, type GoldValidationDeps } from '../../src/judge/gold-validation';
import { formatFunnel, funnel } from '../../src/judge/funnel';
import { validateStages } from '../../src/judge/gold-yield';
import type { Chain } from '../../src/schemas';
import { testEnvironments } from '../support/environments';
import { pythonChain } from '../support/python-chain';
import { ownSandboxes } from '../support/containers';

const docker = new Docker();
let chain: Chain;
let deps: GoldValidationDeps;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gold-'));
  ({ chain } = await pythonChain(join(dir, 'shapes'), 'gen/shapes'));
  deps = {
    docker,
    store: new ArtifactStore(join(dir, 'artifacts')),
    sandbox: { memoryMb: 512, pidsLimit: 128 },
    environments: testEnvironments(docker),
  };
});

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

const t = (file: string, name: string) => `tests/${file}.py::${name}`;

test('a generated package: FAIL_TO_PASS, PASS_TO_PASS and broken tests per stage, and a stage no test verifies is marked so', async () => {
  const [first, second, third] = await Promise.all([0, 1, 2].map((stage) => goldTestsFor(deps, chain, stage)));
  expect(first).toMatchObject({
    repo: 'gen/shapes',
    prNumber: 1,
    status: 'verified',
    failToPass: [t('test_area', 'test_circle')],
    passToPass: [t('test_area', 'test_square')],
    // It needs a network the sandbox does not have: it fails on the gold merge too and checks nothing.
    brokenOnGold: [t('test_area', 'test_needs_network')],
    checks: { baseChecksOut: true, goldApplies: true, carry: 'none' },
  });
  // #2 changes code and adds a test, but that test passes before the change as well.
  expect(second).toMatchObject({
    status: 'no-verifying-test',
    failToPass: [],
    passToPass: [t('test_square', 'test_square_of_zero')],
    checks: { carry: 'clean' },
  });
  expect(third).toMatchObject({
    status: 'verified',
    failToPass: [t('test_square', 'test_square_rejects_negative_side')],
    passToPass: [t('test_square', 'test_square_of_zero')],
  });
});

test('broken stages are recorded as invalid with the reason, and the funnel per repository counts them', async () => {
  const pr = chain.prs[1];
  const missingBase = {
    ...chain,
    repo: { ...chain.repo, name: 'gen/missing-base' },
    prs: [{ ...pr, baseSha: 'deadbeef'.repeat(5) }],
  };
  const notApplying = {
    ...chain,
    repo: { ...chain.repo, name: 'gen/bad-patch' },
    prs: [{ ...pr, patch: pr.patch.replace('-    return side * side', '-    return side * side * 1') }],
  };
  const binary = {
    ...chain,
    repo: { ...chain.repo, name: 'gen/binary' },
    prs: [
      {
        ...pr,
        patch: `${pr.patch}diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..1111111\nBinary files /dev/null and b/logo.png differ\n`,
      },
    ],
  };
  const chains = [chain, missingBase, notApplying, binary];
  const records = await validateStages(deps, chains);
  const problems = records.filter((r) => r.status === 'invalid').map((r) => r.problem);
  expect(problems).toEqual([
    expect.stringMatching(/^the base commit deadbeef(deadbeef){4} of PR #2 does not exist in /),
    expect.stringMatching(/^the gold patch of PR #2 does not apply to its base [0-9a-f]{12}:\n.*shapes\/area\.py/s),
    expect.stringMatching(/^the gold patch of PR #2 changes the binary file logo\.png without its content/),
  ]);
  // A stage that got no environment counts under the language detected at its base, where it has one.
  expect(funnel(chains, records).map((r) => [r.repo, r.language, r.stages, r.environmentBuilt, r.stable])).toEqual([
    ['gen/bad-patch', 'python', 1, 0, 0],
    ['gen/binary', 'python', 1, 0, 0],
    ['gen/missing-base', 'unknown', 1, 0, 0],
    ['gen/shapes', 'python', 3, 3, 2],
  ]);
  // Broken inputs are their own kind of reason, and the funnel stops them before an environment.
  expect(records.filter((r) => r.status === 'invalid').map((r) => r.reason?.kind)).toEqual([
    'invalid-inputs',
    'invalid-inputs',
    'invalid-inputs',
  ]);
  const text = formatFunnel(funnel(chains, records));
  expect(text).toMatch(/^gen\/shapes\s+python\s+3\s+3\s+3\s+3\s+2\s+2\s+67%$/m);
  expect(text).toMatch(/^gen\/missing-base\s+unknown\s+1\s+1\s+0\s+0\s+0\s+0\s+0%$/m);
  expect(text).toContain(
    'gen/shapes (python):\n  chains: 1; every stage verified: 0; cut at stage 2: 1 (no-verifying-test 1)\n  stages not verified: 1 (no-verifying-test 1)',
  );
  expect(funnel([], [])).toEqual([]);
});

test('an environment recipe that fails to build is a clear error on the stage', async () => {
  const failing = testEnvironments(docker, {
    'gen/failing': { setup: ['python3 -m pip install --no-index no-such-package'] },
  });
  const other = { ...chain, repo: { ...chain.repo, name: 'gen/failing' } };
  const attempt = goldTestsFor({ ...deps, environments: failing }, other, 0);
  await expect(attempt).rejects.toThrow(StageError);
  await expect(attempt).rejects.toThrow(
    /the environment recipe of gen\/failing \(config\) failed to build at [0-9a-f]{12} \(exit code 1\):\n.*no-such-package/s,
  );
  // The same stages of the same repository under its detected recipe are unaffected.
  expect((await goldTestsFor(deps, chain, 0)).status).toBe('verified');
});
