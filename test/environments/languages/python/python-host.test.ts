import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../../src/artifacts/store';
import { hostPythons } from '../../../../src/environments/languages/python/host-pythons';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes } from '../../../support/containers';
import { missingPython, testIf } from '../../../support/preconditions';
import { testEnvironments } from '../../../support/environments';

const docker = new Docker();

// PEP 695's `type` statement: the package does not even import before Python 3.12.
const AREA = 'type Number = int | float\n\n\ndef square(side: Number) -> Number:\n    return side * side\n';
const PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shapes"\nversion = "0.1.0"\nrequires-python = ">=3.12"\n';

testIf(missingPython(12))(
  'a project that needs Python 3.12 gets the newest host Python of its era in a toolchain image, and pytest runs its tests there',
  async () => {
    const newer = (await hostPythons()).filter((p) => Number(p.version.split('.')[1]) >= 12);
    expect(newer.length).toBeGreaterThan(0);
    // Commits dated January 2025: 3.13 was out (first beta May 2024) where the host has it.
    const newest = newer
      .filter((p) => p.version <= '3.13')
      .sort((a, b) => Number(b.version.split('.')[1]) - Number(a.version.split('.')[1]))[0];
    const repo = await ChainRepo.create(
      join(await mkdtemp(join(tmpdir(), 'chainsmith-py312-')), 'shapes'),
      {
        'pyproject.toml': PYPROJECT,
        'shapes/__init__.py': '',
        'shapes/area.py': AREA,
        'tests/test_area.py': 'from shapes import area\n\n\ndef test_square():\n    assert area.square(3) == 9\n',
      },
      new Date('2025-01-06T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add the area of a circle', {
      'shapes/area.py': `${AREA}\n\ndef circle(radius: Number) -> float:\n    return 3.14159 * radius * radius\n`,
      'tests/test_area.py':
        'from shapes import area\n\n\ndef test_square():\n    assert area.square(3) == 9\n\n\ndef test_circle():\n    assert round(area.circle(1), 2) == 3.14\n',
    });
    const chain = repo.chain('env/shapes312', [pr]);
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);

    const { toolchain, resolution } = env.manifest;
    expect(toolchain).toMatchObject({ name: 'python', wanted: newest.version, version: `Python ${newest.full}` });
    expect(toolchain.image).toMatch(
      new RegExp(`^chainsmith-toolchain:python${newest.version.replace('.', '\\.')}-[0-9a-f]{12}$`),
    );
    expect(toolchain.note).toMatch(
      new RegExp(
        `asks for Python >=3\\.12; Python ${newest.version.replace('.', '\\.')} is the newest of those provided`,
      ),
    );
    // pytest is not the image's Debian one (that is 3.11's): fetched for this Python, as of the start of the
    // quarter the declarations were made in (the base's date, 2025-01-06), which has a pytest for it.
    expect(resolution).toMatchObject({ ecosystem: 'pypi', asOf: expect.stringMatching(/^2025-01-01/) });
    expect(resolution!.packages.map((p) => p.name.toLowerCase())).toContain('pytest');

    const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-py312-')), 'artifacts'));
    const gold = await goldTestsFor(
      { docker, store, sandbox: { memoryMb: 1024, pidsLimit: 256 }, environments },
      chain,
      0,
    );
    expect(gold).toMatchObject({
      status: 'verified',
      runner: 'pytest',
      signal: 'per-test',
      failToPass: ['tests/test_area.py::test_circle'],
      passToPass: ['tests/test_area.py::test_square'],
    });
    expect(gold.environment?.toolchain).toMatch(new RegExp(`^Python ${newest.full.replace(/\./g, '\\.')}`));
    expect(await ownSandboxes(docker)).toHaveLength(0);

    // A second builder (another worker) finds the toolchain and environment images by their content keys.
    const again = await testEnvironments(docker).forStage(chain, 0);
    expect(again.image).toBe(env.image);
  },
  15 * 60_000,
);
