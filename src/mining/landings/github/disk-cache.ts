import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { writeAtomic } from '../../../atomic-file';

/**
 * One JSON file per answer, written whole (temp file + rename) so an interrupted mine leaves no
 * half-written entry. A file that is damaged anyway is moved aside with a warning and fetched again:
 * one bad file must not cost the rest of the cache. An entry written by an older version of its
 * shape (a number in its `version` below the one asked for) is a miss, fetched again and overwritten.
 */
export class DiskCache {
  hits = 0;

  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  fileOf(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  async read<T>(key: string, schema: z.ZodType<T>, version?: number): Promise<T | undefined> {
    const file = this.fileOf(key);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let problem: string;
    try {
      const json: unknown = JSON.parse(text);
      const written = (json as { version?: unknown } | null)?.version;
      if (version !== undefined && typeof written === 'number' && written < version) return undefined;
      const parsed = schema.safeParse(json);
      if (parsed.success) return parsed.data;
      problem = `${parsed.error.issues[0].path.join('.') || '(root)'}: ${parsed.error.issues[0].message}`;
    } catch (error) {
      problem = (error as Error).message;
    }
    const aside = `${file}.corrupt`;
    await rename(file, aside);
    this.warn(`cache file ${file} is corrupt (${problem}); moved it to ${aside} and fetching that part again`);
    return undefined;
  }

  /** Counts a use of the cache instead of a request. */
  hit<T>(value: T): T {
    this.hits += 1;
    return value;
  }

  async write(key: string, value: unknown): Promise<void> {
    await writeAtomic(this.fileOf(key), JSON.stringify(value));
  }
}
