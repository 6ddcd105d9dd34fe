import { mkdir, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostPythons } from '../../../../src/environments/languages/python/host-pythons';
import { choosePython } from '../../../../src/environments/languages/python/versions';
import { testedPythons, toxMinors, yamlMinors } from '../../../../src/environments/languages/python/tested-pythons';
import { ChainRepo } from '../../../support/chain-repo';
import { missingPython, testIf } from '../../../support/preconditions';

const provided = ['2.7', '3.9', '3.10', '3.11', '3.12', '3.13'].map((version) => ({
  version,
  prefix: `/opt/python${version}`,
}));
const pick = (spec: string | undefined, day: string, needsNoFetch = false) => {
  const { version, prefix } = choosePython(provided, spec, new Date(`${day}T12:00:00Z`), needsNoFetch);
  return prefix ? `${version} from ${prefix}` : `${version} (image)`;
};

test("a stage gets the newest Python its project allows that was out by its base commit, else the nearest allowed, else the image's 3.11", () => {
  // Out from its first beta: jinja's "test with python 3.13" (2024-05-13) came five days after 3.13.0b1.
  expect(pick('>=3.8', '2024-05-13')).toBe('3.13 from /opt/python3.13');
  expect(pick('>=3.8', '2024-05-01')).toBe('3.12 from /opt/python3.12');
  // 3.11 is the image's own, whatever the host provides of it.
  expect(pick('>=3.8', '2023-01-10')).toBe('3.11 (image)');
  expect(pick(undefined, '2021-08-01')).toBe('3.10 from /opt/python3.10');
  expect(pick('>=3.6,<3.10', '2022-08-01')).toBe('3.9 from /opt/python3.9');
  // Nothing allowed was out yet: the nearest allowed, the oldest; Python 2 is never offered (no venv).
  expect(pick('>=3.12', '2023-01-10')).toBe('3.12 from /opt/python3.12');
  expect(pick(undefined, '2015-01-01')).toBe('3.9 from /opt/python3.9');
  // Nothing allowed at all: the image's, with a note saying so.
  expect(pick('<3.8', '2019-01-01')).toBe('3.11 (image)');
  expect(choosePython(provided, '<3.8', new Date('2019-01-01')).note).toMatch(
    /asks for Python <3\.8; none of those provided \(3\.9, 3\.10, 3\.11, 3\.12, 3\.13\) matches/,
  );
  // A project that needs no registry on the image's Python keeps it where it may.
  expect(pick('>=3.8', '2025-01-01', true)).toBe('3.11 (image)');
  expect(pick('>=3.12', '2025-01-01', true)).toBe('3.13 from /opt/python3.13');
  // ... but not where it is not of the stage's era: out after its base commit, or outside the minors it tests on.
  expect(pick(undefined, '2021-08-01', true)).toBe('3.10 from /opt/python3.10');
  expect(choosePython(provided, undefined, new Date('2025-01-01'), true, ['3.9', '3.10']).version).toBe('3.10');
  expect(choosePython(provided, undefined, new Date('2025-01-01'), true, ['3.10', '3.12']).version).toBe('3.11');
  // Without host Pythons, the image's for everything, as before.
  expect(choosePython([], '>=3.12', new Date('2025-01-01'))).toMatchObject({
    version: '3.11',
    note: expect.stringMatching(/the image's 3\.11, the nearest available/),
  });
  expect(choosePython(provided, '>=3.8', new Date('2024-06-01')).note).toMatch(
    /Python 3\.13 is the newest of those provided .* that was out \(first beta 2024-05-08\) by the base commit's date 2024-06-01/,
  );
});

test("a PR whose merge excludes every Python its base allows gets one the merge allows, by the base's era", () => {
  // The base allows only 3.8, which nobody provides past the image's; the merge asks for 3.9 or later.
  const at = (day: string) => choosePython(provided, '<3.9', new Date(`${day}T12:00:00Z`), false, [], '>=3.9');
  expect(at('2022-03-01')).toMatchObject({
    version: '3.10',
    note: expect.stringMatching(/Python 3\.10, the newest the merge allows that was out by 2022-03-01/),
  });
  // Before any of them was out: the nearest to the era, not the newest.
  expect(at('2019-06-01')).toMatchObject({
    version: '3.9',
    note: expect.stringMatching(/the oldest the merge allows/),
  });
});

test('a project that names the Pythons it tests on gets the roundest of them, with the newest as its fallback; one that names none, or none provided, keeps the era rule', () => {
  // jinja #1960: three days after 3.13.0b1, CI up to 3.12: its pins (trio 0.22.2) do not import on 3.13.
  const at = new Date('2024-05-11T12:00:00Z');
  expect(choosePython(provided, '>=3.7', at, false, ['3.9', '3.10', '3.11', '3.12'])).toMatchObject({
    version: '3.12',
    note: expect.stringMatching(/tests on Python 3\.9, 3\.10, 3\.11, 3\.12/),
  });
  expect(choosePython(provided, '>=3.7', at, false, ['3.9', '3.10', '3.11', '3.12']).newer).toBeUndefined();
  // A span of tested minors that slides up a minor a year keeps its roundest: 3.8 from 3.5–3.8 to 3.8–3.13.
  const spans = [
    ['2020-01-10', ['3.5', '3.6', '3.7', '3.8']],
    ['2021-03-26', ['3.6', '3.7', '3.8', '3.9']],
    ['2021-11-09', ['3.7', '3.8', '3.9', '3.10', '3.11']],
    ['2024-07-02', ['3.8', '3.9', '3.10', '3.11', '3.12', '3.13']],
  ] as const;
  const wide = [{ version: '3.8', prefix: '/opt/python3.8' }, ...provided];
  expect(spans.map(([d, t]) => choosePython(wide, '>=3.5', new Date(d), false, [...t]).version)).toEqual([
    '3.8',
    '3.8',
    '3.8',
    '3.8',
  ]);
  // Where the roundest is older than the newest, the newest is the fallback (what the stage resolves may need it).
  expect(choosePython(wide, '>=3.5', new Date('2024-07-02'), false, [...spans[3][1]]).newer).toMatchObject({
    version: '3.13',
    prefix: '/opt/python3.13',
  });
  // attrs #556 (2019-09): CI up to 3.8 in its beta, whose packages of the day (hypothesis) do not import on it yet:
  // the roundest of the released ones, with the beta as the fallback; once 3.8 is out, 3.8.
  const beta = ['3.5', '3.6', '3.7', '3.8'];
  const older = [...['3.6', '3.7'].map((version) => ({ version, prefix: `/opt/python${version}` })), ...wide];
  expect(choosePython(older, '>=3.5', new Date('2019-09-01'), false, beta)).toMatchObject({
    version: '3.6',
    note: expect.stringMatching(/3\.8 not yet released, not chosen/),
    newer: { version: '3.8' },
  });
  expect(choosePython(older, '>=3.5', new Date('2019-10-20'), false, beta).version).toBe('3.8');
  // Once the span drops it, the roundest left: 3.12 (4) over 3.10 (2), 3.9, 3.11, 3.13.
  expect(choosePython(wide, '>=3.9', at, false, ['3.9', '3.10', '3.11', '3.12', '3.13']).version).toBe('3.12');
  // Tested only on a minor the host lacks: the newest below it, not a newer one.
  const gap = [
    { version: '3.10', prefix: '/opt/python3.10' },
    { version: '3.13', prefix: '/opt/python3.13' },
  ];
  expect(choosePython(gap, '>=3.7', at, false, ['3.12']).version).toBe('3.11');
  // Only minors between the oldest and the newest tested: none older than the project tests on.
  expect(choosePython(provided, '>=3.7', at, false, ['3.10', '3.12']).version).toBe('3.12');
  expect(choosePython(provided, '>=3.7', at, false, [])).toMatchObject({ version: '3.13' });
  // A minor tested before its first beta (3.11-dev in CI) is still capped by the era.
  expect(choosePython(provided, '>=3.7', new Date('2022-03-01'), false, ['3.10', '3.11']).version).toBe('3.10');
  // Tested only on minors the host lacks: nothing at or below them is provided, so the era rule decides.
  expect(choosePython([{ version: '3.13', prefix: '/opt/python3.13' }], '>=3.12', at, false, ['3.12']).version).toBe(
    '3.13',
  );
});

test('the tested minors are read from workflows, tox and classifiers at the base, PyPy and Python 2 left out', async () => {
  expect(
    yamlMinors(
      "    matrix:\n      include:\n        - {python: '3.12'}\n        - {name: PyPy, python: 'pypy-3.10'}\n        - {python: '3.11-dev'}\n",
    ),
  ).toEqual(['3.12', '3.11']);
  expect(yamlMinors('      python-version: ["3.8", "3.9"]\n')).toEqual(['3.8', '3.9']);
  expect(
    yamlMinors(
      "        python-version:\n          - '2.7'\n          - '3.6'\n          # - '3.13'\n        os: [ubuntu-latest]\n        node: '3.14'\n",
    ),
  ).toEqual(['3.6']);
  expect(toxMinors('[tox]\nenvlist =\n    py3{11,10,9},pypy3{8,7}\n    py{38,37,py3}\n    style\n')).toEqual([
    '3.11',
    '3.10',
    '3.9',
    '3.8',
    '3.7',
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-tested-'));
  const repo = await ChainRepo.create(dir, {
    '.github/workflows/tests.yaml':
      "jobs:\n  t:\n    strategy:\n      matrix:\n        python-version: ['3.9', '3.10']\n",
    'setup.cfg': 'classifiers =\n    Programming Language :: Python :: 3.11\n',
    'tox.ini': '[tox]\nenvlist = py38\n',
  });
  expect(await testedPythons(dir, await repo.head())).toEqual(['3.8', '3.9', '3.10', '3.11']);
  const bare = await ChainRepo.create(join(dir, 'bare'), { 'setup.py': 'from setuptools import setup\nsetup()\n' });
  expect(await testedPythons(bare.path, await bare.head())).toEqual([]);
});

testIf(missingPython())(
  "host Pythons are pyenv's versions under PYENV_ROOT and the configured prefixes, one per minor, symlinks resolved, other directories passed over",
  async () => {
    const some = (await hostPythons())[0];
    expect(some).toBeDefined();
    const root = await mkdtemp(join(tmpdir(), 'chainsmith-pyenv-'));
    await mkdir(join(root, 'versions', 'not-a-python', 'bin'), { recursive: true });
    await symlink(some.prefix, join(root, 'versions', 'alias'));
    const pyenvRoot = process.env.PYENV_ROOT;
    process.env.PYENV_ROOT = root;
    try {
      expect(await hostPythons()).toEqual([{ version: some.version, full: some.full, prefix: some.prefix }]);
      // The same interpreter configured too (through another link) is one entry.
      const copy = join(root, 'opt-python');
      await symlink(some.prefix, copy);
      expect(await hostPythons([copy])).toEqual([{ version: some.version, full: some.full, prefix: some.prefix }]);
      expect(await hostPythons(['/nonexistent/python'])).toHaveLength(1);
    } finally {
      if (pyenvRoot === undefined) delete process.env.PYENV_ROOT;
      else process.env.PYENV_ROOT = pyenvRoot;
    }
  },
);
