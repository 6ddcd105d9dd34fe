import { specifierAllows, tomlKeys, tomlStrings, tomlTable } from '../../src/environments/languages/pyproject';

test('enough of pyproject.toml is read to choose what to resolve; Python specifiers say whether 3.11 fits', () => {
  const text = `[build-system]\nrequires = [\n  "flit_core<4", # the backend\n  'wheel',\n]\n\n[project]\nname = "x"\ndependencies = ["MarkupSafe>=2.0"]\n\n[project.optional-dependencies]\ni18n = ["Babel>=2.7"]\n"docs" = ["sphinx"]\n\n[dependency-groups]\ntests = ["pytest"]\n`;
  expect(tomlStrings(tomlTable(text, 'build-system'), 'requires')).toEqual(['flit_core<4', 'wheel']);
  expect(tomlStrings(tomlTable(text, 'project'), 'dependencies')).toEqual(['MarkupSafe>=2.0']);
  expect(tomlKeys(tomlTable(text, 'project.optional-dependencies'))).toEqual(['i18n', 'docs']);
  expect(tomlKeys(tomlTable(text, 'dependency-groups'))).toEqual(['tests']);
  expect(tomlTable(text, 'tool.black')).toBeUndefined();
  for (const yes of ['>=3.7', '>= 3.10', '>=2.7,!=3.0.*,!=3.1.*', '~=3.8', '==3.11.*', '<4', '']) expect(specifierAllows(yes, '3.11')).toBe(true);
  for (const no of ['<3.10', '==2.7.*', '>=3.12', '~=3.8.1', '!=3.11.*']) expect(specifierAllows(no, '3.11')).toBe(false);
});
