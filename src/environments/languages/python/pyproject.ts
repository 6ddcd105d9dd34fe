/**
 * Just enough TOML for pyproject.toml: the keys of a table, and arrays of strings. A project file
 * that this cannot read is handed to the resolver as it is, which reads it properly.
 */
export function tomlTable(text: string, name: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `[${name}]`);
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Keys defined in a table's body (`key = …`), in order. */
export function tomlKeys(body: string | undefined): string[] {
  if (!body) return [];
  return [...body.matchAll(/^\s*("?)([\w.-]+)\1\s*=/gm)].map((m) => m[2]);
}

/** The strings of `key = [ … ]` in a table's body (multi-line arrays included); undefined where absent. */
export function tomlStrings(body: string | undefined, key: string): string[] | undefined {
  if (!body) return undefined;
  const m = new RegExp(`^\\s*"?${key.replace(/[.-]/g, '\\$&')}"?\\s*=\\s*\\[`, 'm').exec(body);
  if (!m) return undefined;
  const rest = body.slice(m.index + m[0].length);
  const values: string[] = [];
  const token = /\s*(?:#[^\n]*|"((?:[^"\\]|\\.)*)"|'([^']*)'|,|(\]))/y;
  let t: RegExpExecArray | null;
  while ((t = token.exec(rest))) {
    if (t[3]) return values;
    if (t[1] !== undefined || t[2] !== undefined) values.push(t[1] ?? t[2]);
  }
  return values;
}

/** The distribution name of a requirement string ('MarkupSafe>=2.0' → 'markupsafe'). */
export function requirementName(req: string): string {
  return (/^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req)?.[1] ?? req).toLowerCase().replace(/[._]+/g, '-');
}

/** Whether a version specifier ('>=3.7', '>=2.7,!=3.0.*,<3.10', '~=3.8') admits `version` ('3.11'); an unreadable one does. */
export function specifierAllows(spec: string, version: string): boolean {
  const v = version.split('.').map(Number);
  const cmp = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  return spec.split(',').every((clause) => {
    const m = /^\s*(~=|===|==|!=|<=|>=|<|>)\s*([\d.]+)(\.\*)?\s*$/.exec(clause);
    if (!m) return true;
    const w = m[2].split('.').map(Number);
    const prefix = v.slice(0, w.length);
    switch (m[1]) {
      case '==':
      case '===':
        return m[3] ? cmp(prefix, w) === 0 : cmp(v, w) === 0 || (w.length < v.length && cmp(prefix, w) === 0);
      case '!=':
        return m[3] ? cmp(prefix, w) !== 0 : cmp(v, w) !== 0;
      case '>=':
        return cmp(v, w) >= 0;
      case '<=':
        return cmp(v, w) <= 0;
      case '>':
        return cmp(v, w) > 0;
      case '<':
        return cmp(v, w) < 0;
      default: // ~=X.Y: >= X.Y and == X.*
        return cmp(v, w) >= 0 && cmp(v.slice(0, w.length - 1), w.slice(0, -1)) === 0;
    }
  });
}
