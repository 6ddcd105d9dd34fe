import { toxDeps } from './tool-deps';

/** setup.cfg sections that configure tools, not what is installed (unknown sections are kept). */
const SETUP_CFG_TOOLS =
  /^(metadata|flake8|pycodestyle|pydocstyle|pylint.*|isort|tool:isort|mypy(-.*)?|tool:pytest|pytest|coverage:.*|bdist_wheel|egg_info|sdist|aliases|build_sphinx|upload_docs|check-manifest|codespell|yapf|versioneer|zest\.releaser.*|doc8|darglint)$/;
/** pyproject.toml tables that configure tools or describe the project, not what is installed (unknown ones are kept). */
const PYPROJECT_TOOLS =
  /^(tool\.(pytest|ruff|black|isort|mypy|coverage|pylint|flake8|pyright|codespell|towncrier|bumpversion|bumpver|tbump|setuptools_scm|cibuildwheel|semantic_release|commitizen|pydocstyle|docformatter|interrogate|check-manifest|pyproject-fmt|djlint|sphinx.*|vulture|bandit|yapf|autopep8|mutmut|poe|flit\.sdist|hatch\.version|hatch\.build|pdm\.version|pdm\.build)(\..*)?|project\.(urls|scripts|gui-scripts|entry-points(\..*)?))$/;
/** [project] keys that describe the project: its classifiers name the Pythons CI runs, which the toolchain choice reads apart. */
const PROJECT_PROSE = /^(description|readme|keywords|classifiers|authors|maintainers|license(-files)?)$/;

/**
 * What a Python manifest declares that the resolver reads, as the fetch is keyed and dated on it
 * (LanguageRecipe.dependencyText): the project's own version left out (withoutOwnVersion), tox.ini's
 * [testenv] deps alone (the only part of it the fetch reads, tool-deps.ts), and in setup.cfg and
 * pyproject.toml the bodies of tool configuration and project prose (linters, pytest's options,
 * classifiers, URLs) left out. Without this, a lint rule, a new classifier or an envlist entry would
 * date every later stage's resolution anew, moving its packages to what had come out since.
 */
export function declaredText(path: string, text: string): string {
  if (/(^|\/)tox\.ini$/.test(path)) return toxDeps(text).join('\n');
  const own = withoutOwnVersion(path, text);
  if (/(^|\/)setup\.cfg$/.test(path)) return withoutBodies(own, SETUP_CFG_TOOLS, undefined);
  if (/(^|\/)pyproject\.toml$/.test(path)) return withoutBodies(own, PYPROJECT_TOOLS, PROJECT_PROSE);
  return own;
}

/**
 * The text with the bodies of the sections whose names match `tables` taken out (their headers stay),
 * and in TOML's [project] the keys matching `projectKeys` with their values (a multi-line array to its closing bracket).
 */
function withoutBodies(text: string, tables: RegExp, projectKeys: RegExp | undefined): string {
  let table = '';
  let skippingValue = false;
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const header = /^\s*\[\s*\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header && !skippingValue) {
      table = header[1].replace(/\s+/g, '').replace(/"/g, '');
      kept.push(line);
      continue;
    }
    if (skippingValue) {
      if (/^\s*\]/.test(line)) skippingValue = false;
      continue;
    }
    if (tables.test(table)) continue;
    const key = /^\s*([\w.-]+)\s*=\s*(.*)$/.exec(line);
    if (projectKeys && table === 'project' && key && projectKeys.test(key[1])) {
      // A value that opens an array or table it does not close on this line runs to a line that starts with `]`.
      const value = key[2].replace(/#.*$/, '').trim();
      if (value.startsWith('[') && !value.endsWith(']')) skippingValue = true;
      continue;
    }
    kept.push(line);
  }
  return kept.join('\n');
}

/**
 * A manifest without the project's own version: a release bumps it, and it decides no dependency. In
 * pyproject.toml only the `version` key of [project] and [tool.poetry] (a Poetry dependency table's
 * `version = "2.28.1"` is a dependency's and stays), in setup.cfg only [metadata]'s; in setup.py the
 * `version=` and `__version__` lines.
 */
export function withoutOwnVersion(path: string, text: string): string {
  const line = /^\s*(__version__|version)\s*[=:]\s*['"]?[\w.+!-]+['"]?\s*,?\s*$/;
  if (/(^|\/)setup\.py$/.test(path))
    return text
      .split('\n')
      .filter((l) => !line.test(l))
      .join('\n');
  const own = /(^|\/)pyproject\.toml$/.test(path)
    ? /^(project|tool\.poetry)$/
    : /(^|\/)setup\.cfg$/.test(path)
      ? /^metadata$/
      : undefined;
  if (!own) return text;
  let table = '';
  return text
    .split('\n')
    .filter((l) => {
      const header = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/.exec(l);
      if (header) table = header[1].replace(/\s+/g, '');
      return !(own.test(table) && line.test(l));
    })
    .join('\n');
}
