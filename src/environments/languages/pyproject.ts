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
