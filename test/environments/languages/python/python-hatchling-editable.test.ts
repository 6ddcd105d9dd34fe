import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainRepo } from '../../../support/chain-repo';
import { missingPythons, testIf } from '../../../support/preconditions';
import { testEnvironments } from '../../../support/environments';
import { removeImages } from '../../../support/containers';
import { ciWorkflow } from '../../../support/python-project';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const PYPROJECT =
  '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "tally"\nversion = "0.1"\nrequires-python = ">=3.8"\n';
const testFile = (n: number) =>
  `from tally import add\n\n\ndef test_add_${n}():\n    assert add(${n}, 1) == ${n + 1}\n`;

/** hatchling installs a project editable only with `editables`, which it asks for apart from its build requirements. */
testIf(missingPythons(['3.12']))(
  'a hatchling project is installed editable: what its backend asks for an editable build is fetched with its build requirements',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-hatchling-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': PYPROJECT,
        '.github/workflows/tests.yml': ciWorkflow(['3.12']),
        'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_add.py': testFile(0),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2025-03-01T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add one', { 'tests/test_1.py': testFile(1) });
    const env = await testEnvironments(docker, {}, join(dir, 'data')).forStage(repo.chain('gen/tally-hatch', [pr]), 0);
    images.push(env.image);
    expect(env.recipe.toolchain.version).toBe('3.12');
    expect(env.manifest.resolution!.packages.map((p) => p.name)).toEqual(
      expect.arrayContaining(['hatchling', 'editables']),
    );
  },
  900_000,
);
