import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { InputError } from '../errors';

/**
 * Rows of a JSONL file, each validated; the first bad row is named by file, line and field. A missing
 * file is `undefined`, so callers decide whether that is an error.
 */
export async function readJsonl<T>(path: string, schema: z.ZodType<T>, what: string): Promise<T[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
  const rows: T[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new InputError(`${path}:${i + 1}: not valid JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InputError(`${path}:${i + 1}: not a ${what}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    rows.push(parsed.data);
  }
  return rows;
}

export function toJsonl(rows: unknown[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}
