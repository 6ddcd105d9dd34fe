import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerContainer } from '../../../../src/container/docker-container';
import type { Environment } from '../../../../src/environments/builder';
import { ChainRepo } from '../../../support/chain-repo';
import { missingPythons, testIf } from '../../../support/preconditions';
import { testEnvironments } from '../../../support/environments';
import { removeImages } from '../../../support/containers';
import { ciWorkflow, TALLY_PYPROJECT } from '../../../support/python-project';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const testFile = (n: number) =>
  `import iniconfig\nfrom tally import add\n\n\ndef test_add_${n}():\n    assert add(${n}, 1) == ${n + 1}\n`;

/** What the venv of an environment image holds, read in a container from it. */
async function inImage(env: Environment, repoPath: string): Promise<Record<string, string>> {
  const sandbox = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: repoPath,
    labels: {},
    memoryMb: 512,
    pidsLimit: 128,
  });
  try {
    const py = `${env.recipe.toolchain.prefix}/bin/python3`;
    const script = [
      `echo "ensurepip=$(${py} -m ensurepip --version)"`,
      'echo "pip=$(/work/.venv/bin/python -m pip --version | cut -d" " -f1-2)"',
      `echo "iniconfig=$(/work/.venv/bin/python -c 'import iniconfig,os;print(os.path.dirname(iniconfig.__file__))')"`,
      'echo "versions=$(/work/.venv/bin/python -m pip list --format freeze 2>/dev/null | grep -iE "^(iniconfig|setuptools|pytest)==" | sort | tr "\\n" " ")"',
      'echo "pyc=$(find /work/.venv/lib -path "*iniconfig*" -name "*.pyc" | wc -l)"',
      'echo "pip-pyc=$(find /work/.venv/lib -path "*site-packages/pip/*" -name "*.pyc" | wc -l)"',
    ].join('\n');
    const r = await sandbox.exec(script, { timeoutSeconds: 120, maxOutputChars: 8_000, cwd: '/work' });
    expect(r.exitCode).toBe(0);
    return Object.fromEntries(
      r.output
        .split('\n')
        .map((l) => /^([\w-]+)=(.*)$/.exec(l.trim()))
        .filter((m): m is RegExpExecArray => !!m)
        .map((m) => [m[1], m[2].trim()]),
    );
  } finally {
    await sandbox.destroy();
  }
}

/**
 * A venv on 3.8 is filled by the fetch's uv (detect.ts, uvVenv): it must hold what pip and ensurepip put
 * there (ensurepip's pip, the pinned packages, byte-compiled), and a changed pin must still be what the
 * next environment holds.
 */
testIf(missingPythons(['3.8']))(
  "a 3.8 venv filled by uv holds ensurepip's pip and the pinned packages, compiled (pip alone is not); a changed pin is installed",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-uv-venv-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': TALLY_PYPROJECT,
        'requirements.txt': 'iniconfig==2.0.0\n',
        '.github/workflows/tests.yml': ciWorkflow(['3.8']),
        'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_add.py': testFile(0),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2024-01-05T00:00:00Z'),
    );
    repo.at(new Date('2024-01-20T00:00:00Z'));
    const one = await repo.pr(1, 'Add one', { 'tests/test_1.py': testFile(1) });
    repo.at(new Date('2024-02-20T00:00:00Z'));
    const two = await repo.pr(2, 'Older iniconfig', { 'requirements.txt': 'iniconfig==1.1.1\n' });
    repo.at(new Date('2024-02-25T00:00:00Z'));
    const three = await repo.pr(3, 'Add three', { 'tests/test_3.py': testFile(3) });
    const chain = repo.chain('gen/tally-uv', [one, two, three]);
    const environments = testEnvironments(docker, {}, join(dir, 'data'));
    const first = await environments.forStage(chain, 0);
    const third = await environments.forStage(chain, 2);
    images.push(first.image, third.image);
    expect(first.recipe.toolchain.version).toBe('3.8');
    expect(first.recipe.setup.join('\n')).toMatch(/-m venv --system-site-packages --without-pip/);

    const a = await inImage(first, repo.path);
    // ensurepip's own pip, as `python -m venv` would have installed it.
    expect(a.pip).toBe(a.ensurepip);
    expect(a.iniconfig).toBe('/work/.venv/lib/python3.8/site-packages/iniconfig');
    expect(a.versions).toMatch(/iniconfig==2\.0\.0/);
    expect(a.versions).toMatch(/pytest==/);
    // The requirements are byte-compiled as pip compiles them; pip itself, which test runs never import, is not.
    expect(Number(a.pyc)).toBeGreaterThan(0);
    expect(a['pip-pyc']).toBe('0');

    // #2 pins an older iniconfig: the stage after it holds that one, in an environment of its own.
    expect(third.image).not.toBe(first.image);
    const c = await inImage(third, repo.path);
    expect(c.versions).toMatch(/iniconfig==1\.1\.1/);
    expect(c.pip).toBe(c.ensurepip);
  },
  1_200_000,
);
