import { satisfies, validRange } from '@renovatebot/pep440';
import { parse, TomlDate, TomlError, type TomlTable } from 'smol-toml';

export type { TomlTable };

/**
 * A pyproject.toml's tables, read by a full TOML parser: dotted keys, inline tables, quoted keys,
 * headers with spaces or comments, every string form. Undefined where the text is not TOML: such a
 * file is handed to the resolver as it is, whose own error then names the stage's reason.
 */
export function parseToml(text: string): TomlTable | undefined {
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof TomlError) return undefined;
    throw err;
  }
}

/** A table (a date is an object too, but no table). */
export const isTable = (v: unknown): v is TomlTable =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof TomlDate);

/** The table at a dotted path of bare names ('tool.poetry.dependencies'); undefined where absent or not a table. */
export function tomlTable(doc: TomlTable | undefined, path: string): TomlTable | undefined {
  let at: unknown = doc;
  for (const name of path.split('.')) at = isTable(at) ? at[name] : undefined;
  return isTable(at) ? at : undefined;
}

/** A table's keys, in the order they are defined. */
export function tomlKeys(table: TomlTable | undefined): string[] {
  return table ? Object.keys(table) : [];
}

/** The strings of an array `key` of a table (other entries, such as PEP 735 `{include-group = …}`, left out); undefined where it is no array. */
export function tomlStrings(table: TomlTable | undefined, key: string): string[] | undefined {
  const value = table?.[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** A table's string `key`; undefined where absent or of another type. */
export function tomlString(table: TomlTable | undefined, key: string): string | undefined {
  const value = table?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** The distribution name of a requirement string ('MarkupSafe>=2.0' → 'markupsafe'). */
export function requirementName(req: string): string {
  return (/^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req)?.[1] ?? req).toLowerCase().replace(/[._]+/g, '-');
}

/**
 * Whether a version specifier ('>=3.7', '>=2.7,!=3.0.*,<3.10', '~=3.8') admits `version` ('3.11'), by
 * PEP 440; of a union of them (`||`, as Poetry's constraints convert: poetryPython), whether one does. A
 * clause that is not PEP 440 (setup.py's `python_requires='>=3.7.*'`) admits any: the resolver, not this
 * choice, is where such a project meets its fate.
 */
export function specifierAllows(spec: string, version: string): boolean {
  return spec.split('||').some((alternative) =>
    alternative
      .split(',')
      .map((clause) => clause.trim())
      .every((clause) => !clause || !validRange(clause) || satisfies(version, clause)),
  );
}
