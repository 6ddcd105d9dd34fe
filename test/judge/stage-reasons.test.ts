import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { TransientError } from '../../src/errors';
import { describeStage, validateStages } from '../../src/judge/gold-yield';
import type { Chain } from '../../src/schemas';
import { ChainRepo, type Files } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';
import { ownSandboxes } from '../support/containers';

const docker = new Docker();

/** What validateStages needs, its artifacts under `dir`: the environments and engine given, or the test's own. */
const depsIn = (
  dir: string,
  timeoutSeconds?: number,
  engine: Docker = docker,
  environments = testEnvironments(engine),
) => ({
  docker: engine,
  store: new ArtifactStore(join(dir, 'artifacts')),
  sandbox: { memoryMb: 512, pidsLimit: 128 },
  environments,
  ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
});

const CALC = 'def add(a, b):\n    return a + b\n';
const TEST_ADD = 'from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n';

/** A one-PR chain of a small repository: `files` at its base beside calc.py; the PR adds sub() and its test. */
async function oneStage(
  dir: string,
  name: string,
  files: Files,
  test = 'from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
): Promise<Chain> {
  const repo = await ChainRepo.create(join(dir, name.replace('/', '-')), {
    'calc.py': CALC,
    'tests/test_add.py': TEST_ADD,
    ...files,
  });
  const pr = await repo.pr(1, 'Add sub', {
    'calc.py': `${CALC}\n\ndef sub(a, b):\n    return a - b\n`,
    'tests/test_sub.py': test,
  });
  return repo.chain(name, [pr]);
}

/**
 * Every way a stage fails becomes its typed reason, whole (the kind, the command that failed, its exit
 * code and its last lines), and validation goes on to the next stage: each broken chain below is
 * followed by one that validates.
 */
test('each failing stage gets its kind, command, exit code and last lines, and validation goes on to the next stage', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-'));
  const unparseable = await oneStage(dir, 'gen/unparseable', { 'requirements.txt': 'pluggy>=1 ==2\n' });
  const scheme = await oneStage(dir, 'gen/scheme', {
    'requirements.txt': 'git://github.com/example/never.git#egg=never\n',
  });
  const build = await oneStage(dir, 'gen/build', {});
  const hang = await oneStage(
    dir,
    'gen/hang',
    {},
    'import time\n\nfrom calc import add\n\n\ndef test_waits_forever():\n    time.sleep(3600)\n',
  );
  const good = await oneStage(dir, 'gen/good', {});
  const environments = testEnvironments(docker, {
    'gen/build': { setup: ['python3 -c "import _chainsmith_missing_extension"'] },
  });
  const deps = depsIn(dir, 15, docker, environments);
  const seen: string[] = [];
  const records = await validateStages(
    deps,
    [unparseable, good, scheme, good, build, good, hang, good],
    (r) => void seen.push(describeStage(r)),
  );

  // After every broken stage, the next one was validated all the same.
  expect(records.map((r) => [r.repo, r.status])).toEqual([
    ['gen/unparseable', 'invalid'],
    ['gen/good', 'verified'],
    ['gen/scheme', 'invalid'],
    ['gen/good', 'verified'],
    ['gen/build', 'invalid'],
    ['gen/good', 'verified'],
    ['gen/hang', 'no-verifying-test'],
    ['gen/good', 'verified'],
  ]);
  const [bad, , url, , failed, , hung] = records.map((r) => r.reason);

  // A requirement line that does not parse will not parse on a retry either: the stage's own reason.
  expect(bad).toMatchObject({
    kind: 'dependencies-unresolvable',
    summary: 'uv cannot resolve the Python requirements: a requirement line does not parse',
    exitCode: 2,
  });
  expect(bad!.command).toMatch(/^uv pip compile requirements\.txt .*--exclude-newer /);
  expect(bad!.tail).toContain("Couldn't parse requirement");
  expect(bad!.tail).toContain('pluggy>=1 ==2');

  expect(url).toMatchObject({ kind: 'unsupported', exitCode: 2 });
  expect(url!.command).toMatch(/^uv pip compile requirements\.txt /);
  expect(url!.tail).toContain('git://github.com/example/never.git');

  expect(failed).toMatchObject({
    kind: 'build-failed',
    command: 'python3 -c "import _chainsmith_missing_extension"',
    exitCode: 1,
  });
  expect(failed!.tail).toMatch(/ModuleNotFoundError: No module named '_chainsmith_missing_extension'$/);

  expect(hung).toMatchObject({ kind: 'timeout', summary: "the PR's tests ran past their limit of 15s" });
  expect(hung!.command).toMatch(/pytest .*tests\/test_sub\.py$/);
  expect(hung!.exitCode).toBe(124);

  // The line validate prints for a stage holds its reason whole: nothing ends at a colon.
  expect(seen[4].split('\n')).toEqual([
    expect.stringMatching(
      /^gen\/build PR #1: build-failed: the environment recipe of gen\/build \(config\) failed to build at [0-9a-f]{12} \(exit code 1\)$/,
    ),
    '    $ python3 -c "import _chainsmith_missing_extension"  (exit 1)',
    ...failed!.tail!.split('\n').map((l) => `    | ${l}`),
  ]);
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/**
 * A detected package whose own install fails (its setup.py raises): the reason names the install
 * line whole, not a program cut at the command's bound, and ends with the project's own error.
 */
test("a package whose install fails names the install line whole, and the package's error", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-install-'));
  const broken = await oneStage(dir, 'gen/install', {
    'setup.py': 'raise SystemExit("calc cannot be installed here")\n',
  });
  const [failed] = await validateStages(depsIn(dir), [broken]);
  expect(failed.reason).toMatchObject({ kind: 'build-failed' });
  expect(failed.reason!.command).toMatch(/ --no-deps -e \. \|\| .* --no-deps \.$/);
  expect(failed.reason!.tail).toContain('calc cannot be installed here');
});

/**
 * A build whose setup prints more than a reason shows (a build of many crates or modules): the command
 * that failed is still the one named, though its echo is far from both ends of the output.
 */
test('a build that prints a lot names the command that failed, not one before it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-long-'));
  const long = await oneStage(dir, 'gen/long', {});
  const noisy = (exit: number) =>
    `python3 -c "import sys; print('\\n'.join('compiling unit %d' % i for i in range(20000))); sys.exit(${exit})"`;
  const environments = testEnvironments(docker, { 'gen/long': { setup: [noisy(0), noisy(3)] } });
  const [failed] = await validateStages(depsIn(dir, undefined, docker, environments), [long]);
  expect(failed.reason).toMatchObject({ kind: 'build-failed', command: noisy(3), exitCode: 3 });
  expect(failed.reason!.tail).toMatch(/compiling unit 19999$/);
});

/**
 * Code of another Python (Python 2's print statement) that the environment's interpreter cannot
 * parse: no change makes the PR's tests pass here, and only a toolchain the host lacks would run
 * them. The stage is unsupported, naming the file and the error, not a test that cannot run.
 */
test("code the environment's Python cannot parse makes the stage unsupported, naming where", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-python2-'));
  const legacy = await oneStage(
    dir,
    'gen/python2',
    { 'legacy.py': 'def hello():\n    print "hello"\n' },
    'import legacy\nfrom calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
  );
  const [failed] = await validateStages(depsIn(dir, 300), [legacy]);
  expect(failed.reason).toMatchObject({ kind: 'unsupported' });
  expect(failed.reason!.summary).toMatch(
    /^the environment's toolchain cannot read the project's code \(legacy\.py, line 2: SyntaxError: /,
  );
});

/**
 * A PR whose only test module is skipped whole on this platform (pytest collects it, skips it and exits
 * 0): its tests never ran here, so no test verifies it, and the reason says they were skipped and why,
 * not that they ran and none tells the change apart.
 */
test('tests all skipped in the environment are not runnable, and the reason quotes the skip', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-skipped-'));
  const windowsOnly = await oneStage(
    dir,
    'gen/windows-only',
    {},
    'import sys\n\nimport pytest\n\nfrom calc import sub\n\npytestmark = pytest.mark.skipif(sys.platform != "win32", reason="Windows only")\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
  );
  const [skipped] = await validateStages(depsIn(dir, 300), [windowsOnly]);
  expect(skipped.reason).toMatchObject({ kind: 'tests-not-runnable' });
  expect(skipped.reason!.summary).toBe(
    'the PR\'s tests are skipped in this environment, not run ("Windows only (tests/test_sub.py)")',
  );
});

/**
 * A setup.py of the years when one source served Python 2 and 3 by converting it with 2to3 as it
 * built: setuptools has refused `use_2to3` since 2021, and the code is Python 2's. The stage is
 * unsupported at once, not a resolver failure with no known cause tried twice.
 */
test('a setup.py that converts Python 2 code as it builds makes the stage unsupported, first time', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-2to3-'));
  const converted = await oneStage(dir, 'gen/use-2to3', {
    'setup.py': 'from setuptools import setup\nsetup(name="calc", version="0.1", py_modules=["calc"], use_2to3=True)\n',
  });
  const [failed] = await validateStages(depsIn(dir, 300), [converted]);
  expect(failed.reason).toMatchObject({ kind: 'unsupported' });
  expect(failed.reason!.summary).toMatch(/converts its Python 2 code with 2to3 as it builds \(use_2to3\)/);
  expect(failed.reason!.tail).toContain('use_2to3 is invalid');
});

/**
 * Exit 137 is what a run stopped at its time limit gets, and also what a SIGKILL from anywhere else
 * gives: tests that kill their own process group long before the limit did not time out.
 */
test('a test run killed before its time limit is not a timeout, and the next stage runs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-kill-'));
  const killer = await oneStage(
    dir,
    'gen/killer',
    {},
    'import os\nimport signal\n\n\ndef test_kills_its_run():\n    os.killpg(os.getpgid(0), signal.SIGKILL)\n',
  );
  const good = await oneStage(dir, 'gen/after-killer', {});
  const deps = depsIn(dir, 300);
  const [killed, next] = await validateStages(deps, [killer, good]);
  expect(killed.reason).toMatchObject({
    kind: 'tests-not-runnable',
    summary: "the PR's tests report no test after the change (exit code 137)",
    exitCode: 137,
  });
  expect(killed.reason!.tail).toMatch(/killed by SIGKILL$/);
  expect(next.status).toBe('verified');
});

/**
 * A test module that cannot be imported in the environment (a package the build lacks) errors before
 * and after the change alike: the tests cannot run there, which is not the same as a PR whose tests
 * verify nothing (and only the former is the setup agent's to mend).
 */
test('tests that error after the real change too are not runnable, and the reason shows the error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-import-'));
  const missing = await oneStage(
    dir,
    'gen/missing-module',
    {},
    'import chainsmith_absent_module\n\nfrom calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
  );
  const good = await oneStage(dir, 'gen/after-missing', {});
  const deps = depsIn(dir, 300);
  const [unrunnable, next] = await validateStages(deps, [missing, good]);
  expect(unrunnable.reason).toMatchObject({ kind: 'tests-not-runnable' });
  expect(unrunnable.reason!.summary).toMatch(
    /^none of the PR's 1 reported tests passes after the change \(exit code [12]\)$/,
  );
  expect(unrunnable.reason!.tail).toContain("No module named 'chainsmith_absent_module'");
  expect(next.status).toBe('verified');
});

/**
 * What is no stage's fault stops the run: with Docker gone, validation throws a retry-later error (the
 * CLI exits 75) after handing on every stage done before it, instead of recording a reason for each
 * stage that follows.
 */
test('a Docker engine that stops answering stops the run with a retryable error, after the stages done before it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-reasons-down-'));
  const good = await oneStage(dir, 'gen/down', {});
  const broken = {
    ...good,
    id: 'broken',
    repo: { ...good.repo, name: 'gen/broken' },
    prs: [{ ...good.prs[0], baseSha: 'deadbeef'.repeat(5) }],
  };
  const gone = new Docker({ socketPath: join(dir, 'no-docker.sock') });
  const deps = depsIn(dir, undefined, gone);
  const seen: string[] = [];
  const run = validateStages(deps, [broken, good, broken], (r) => void seen.push(`${r.repo} ${r.reason?.kind}`));
  await expect(run).rejects.toThrow(TransientError);
  await expect(run).rejects.toThrow(
    /^the Docker engine no longer answers \(.*\); validation stopped at gen\/down PR #1 /,
  );
  expect(seen).toEqual(['gen/broken invalid-inputs']);
});
