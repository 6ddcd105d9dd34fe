import {
  parseToml,
  specifierAllows,
  tomlKeys,
  tomlStrings,
  tomlTable,
} from '../../../../src/environments/languages/python/pyproject';
import { addedTestRequirements } from '../../../../src/environments/languages/python/detect';

test('enough of pyproject.toml is read to choose what to resolve; Python specifiers say whether 3.11 fits', () => {
  const text = `[build-system]\nrequires = [\n  "flit_core<4", # the backend\n  'wheel',\n]\n\n[project]\nname = "x"\ndependencies = ["MarkupSafe>=2.0"]\n\n[project.optional-dependencies]\ni18n = ["Babel>=2.7"]\n"docs" = ["sphinx"]\n\n[dependency-groups]\ntests = ["pytest"]\n`;
  const doc = parseToml(text);
  expect(tomlStrings(tomlTable(doc, 'build-system'), 'requires')).toEqual(['flit_core<4', 'wheel']);
  expect(tomlStrings(tomlTable(doc, 'project'), 'dependencies')).toEqual(['MarkupSafe>=2.0']);
  expect(tomlKeys(tomlTable(doc, 'project.optional-dependencies'))).toEqual(['i18n', 'docs']);
  expect(tomlKeys(tomlTable(doc, 'dependency-groups'))).toEqual(['tests']);
  expect(tomlTable(doc, 'tool.black')).toBeUndefined();
  // Pre-releases ('3.11.0rc1') are PEP 440 versions too; a clause that is not PEP 440 ('>=3.7.*') admits any.
  for (const yes of [
    '>=3.7',
    '>= 3.10',
    '>=2.7,!=3.0.*,!=3.1.*',
    '~=3.8',
    '==3.11.*',
    '<4',
    '',
    '>=3.10.0b1',
    '>=3.7.*',
  ])
    expect(specifierAllows(yes, '3.11')).toBe(true);
  for (const no of ['<3.10', '==2.7.*', '>=3.12', '~=3.8.1', '!=3.11.*', '<3.11.0rc1', '>=3.7.*,<3.11'])
    expect(specifierAllows(no, '3.11')).toBe(false);
});

test("a PR's added test requirements are the packages its test files, extras or groups name that nothing at its base names", async () => {
  const files = (entries: Record<string, string>) => ({
    rootFiles: new Set(Object.keys(entries).map((f) => f.split('/')[0])),
    read: async (p: string) => entries[p],
  });
  const base = files({
    'setup.py': 'setup(install_requires=["MarkupSafe>=2.0"])',
    'requirements/tests.txt': 'pytest==7.4.0\nexceptiongroup==1.1.1\n',
    'requirements/dev.txt': 'tox==4.0\n',
  });
  // jinja #1960's kind: trio and what it pulls in enter the pinned test requirements; pytest is only bumped.
  const merged = files({
    'setup.py': '',
    'requirements/tests.txt':
      '# via x\npytest==8.0\ntrio==0.22.2\n    # via -r tests.in\nOutcome==1.3.0\n-r base.txt\n',
    'requirements/dev.txt': 'tox==4.0\nruff\n',
  });
  expect(await addedTestRequirements(base, merged)).toEqual(['outcome', 'trio']);
  // A tests group counts; a dev group (linters, release tools) and what setup.py already names do not.
  const grouped = files({
    'pyproject.toml': '[dependency-groups]\ntests = ["pytest", "pytest-timeout", "markupsafe"]\ndev = ["ruff"]\n',
  });
  expect(await addedTestRequirements(base, grouped)).toEqual(['pytest-timeout']);
  expect(await addedTestRequirements(base, base)).toEqual([]);
});
