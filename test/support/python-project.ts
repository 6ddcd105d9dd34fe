import type { PythonInputs } from '../../src/environments/languages/python/fetch';

/** `tally`, a setuptools project on Python 3.8 and later: the pyproject.toml of generated Python repositories. */
export const TALLY_PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "0.1"\nrequires-python = ">=3.8"\n';

/** A GitHub Actions workflow that runs pytest on each of `pythons` (what the Python choice reads as tested minors). */
export const ciWorkflow = (pythons: string[]) =>
  `name: tests\non: [push]\njobs:\n  tests:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        python-version: [${pythons.map((p) => `"${p}"`).join(', ')}]\n    steps:\n      - run: pytest\n`;

/** A Python fetch's inputs with nothing besides what its checkout declares but `over` (Python, tooling, ...): what a test fetch varies. */
export const fetchInputs = (over: Partial<PythonInputs> & Pick<PythonInputs, 'python'>): PythonInputs => ({
  buildRequires: [],
  testTooling: [],
  uvLock: false,
  prAdds: [],
  toolDeps: [],
  ...over,
});
