import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo, type Files } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();
const environments = testEnvironments(docker);
removeBuiltImagesAfterAll(docker, environments);

const PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "0.1"\n';
const TEST = 'from tally import limit\n\n\ndef test_limit():\n    assert limit.LIMIT == 4\n';
const PYTEST = 'python3 -m pytest -q -p no:cacheprovider tests';

/** A gold sandbox at the base of a PR that raises LIMIT from 3 to 4 (a change of one byte, the size kept). */
async function atBase(
  name: string,
  files: Files = {},
): Promise<{ sandbox: StageSandbox; sh: (c: string) => Promise<string>; merge: string }> {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-bytecode-${name}-`));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pyproject.toml': PYPROJECT,
    'tally/__init__.py': '',
    'tally/limit.py': 'LIMIT = 3\n',
    'tests/test_limit.py': TEST.replace('== 4', '== 3'),
    ...files,
  });
  const pr = await repo.pr(1, 'Raise the limit', { 'tally/limit.py': 'LIMIT = 4\n', 'tests/test_limit.py': TEST });
  const chain = repo.chain(`gen/tally-bytecode-${name}`, [pr]);
  const sandbox = await StageSandbox.open(goldDeps(docker, dir, environments), chain, 0, { role: { kind: 'gold' } });
  const sh = async (command: string) => {
    const r = await sandbox.exec(command, { timeoutSeconds: 120, maxOutputChars: 20_000 });
    if (r.exitCode !== 0) throw new Error(`${command} failed (${r.exitCode}):\n${r.output}`);
    return r.output.trim();
  };
  return { sandbox, sh, merge: pr.mergeSha };
}

const stamp = (path: string) => `stat -c %y ${path}`;

test("a sandbox's pytest runs keep what they compile, which git ignores, and compile again only what changed", async () => {
  const { sandbox, sh, merge } = await atBase('kept');
  try {
    await sh(PYTEST);
    const pyc = '$(ls tally/__pycache__/limit.*.pyc)';
    const first = await sh(stamp(pyc));
    // pytest's rewrite of the test module is kept too.
    expect(await sh('ls tests/__pycache__')).toMatch(/^test_limit\..*-pytest-.*\.pyc$/m);
    await sh(PYTEST);
    expect(await sh(stamp(pyc))).toBe(first);
    // The PR's change is seen: its module is compiled again, and no patch holds what was compiled.
    await sh(`git checkout -q ${merge} -- tally tests && ${PYTEST}`);
    expect(await sh(stamp(pyc))).not.toBe(first);
    expect(await sh('git status --porcelain --untracked-files=all -- tally/__pycache__ tests/__pycache__')).toBe('');
    expect(await sh('git status --porcelain')).toBe('M  tally/limit.py\nM  tests/test_limit.py');
  } finally {
    await sandbox.destroy();
  }
});

/**
 * The case Python's own check misses: a module rewritten within the second of its last write, with as
 * many bytes. Python alone then imports what it compiled before (the control below shows it does);
 * a pytest run drops that first.
 */
test('a module rewritten within the second it was compiled in, with its size kept, is compiled again by the next pytest run', async () => {
  const { sandbox, sh, merge } = await atBase('same-second');
  try {
    const compiled = await sh(
      [
        'for i in $(seq 40); do',
        "  printf 'LIMIT = 3\\n' > tally/limit.py",
        // What an earlier run left: the module compiled from that source.
        '  python3 -c "import sys; sys.dont_write_bytecode = False; import tally.limit"',
        "  before=$(stat -c %Y tally/limit.py); printf 'LIMIT = 4\\n' > tally/limit.py",
        '  if [ "$(stat -c %Y tally/limit.py)" = "$before" ]; then echo same second; break; fi',
        'done',
      ].join('\n'),
    );
    expect(compiled).toBe('same second');
    // Control: Python, left to itself, imports the stale module.
    expect(await sh('python3 -c "import tally.limit; print(tally.limit.LIMIT)"')).toBe('3');
    await sh(`git checkout -q ${merge} -- tests && ${PYTEST}`);
  } finally {
    await sandbox.destroy();
  }
});

test('nothing is compiled into a tree whose repository tracks a compiled module', async () => {
  const { sandbox, sh } = await atBase('tracked', { 'tally/old.pyc': 'not bytecode' });
  try {
    await sh(PYTEST);
    expect(await sh('find . -path ./.git -prune -o -name "*.pyc" -print')).toBe('./tally/old.pyc');
  } finally {
    await sandbox.destroy();
  }
});
