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
