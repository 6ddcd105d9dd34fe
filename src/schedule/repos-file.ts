import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { InputError } from '../errors';
import type { ScheduledRepo } from '../workflows/types';

const KEYS = new Set(['name', 'branch', 'clone', 'remote', 'judge-links']);

/**
 * A repos file: one repository a line, `#` starts a comment. A line is a clone's path (relative to the
 * file) or `github:OWNER/NAME`, then optional `key=value` fields: `name=owner/name`, `branch=B`,
 * `remote=R` (the clone's remote to fetch, default origin), `clone=PATH` (with github:, the clone
 * patches come from and chains run in), `judge-links=yes` (each run's mine asks the configured model
 * about its candidate links, as `mine --judge-links` does).
 */
export async function readReposFile(path: string): Promise<ScheduledRepo[]> {
  const text = await readFile(path, 'utf8').catch((cause: Error) => {
    throw new InputError(`--repos ${path}: ${cause.message}`, { cause });
  });
  const at = (file: string) => (isAbsolute(file) ? file : resolve(dirname(resolve(path)), file));
  const repos = text.split('\n').flatMap((raw, i): ScheduledRepo[] => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return [];
    const [first, ...rest] = line.split(/\s+/);
    const fields: Record<string, string> = {};
    for (const field of rest) {
      const [key, value] = field.split('=', 2);
      if (!KEYS.has(key) || !value)
        throw new InputError(
          `${path}:${i + 1}: "${field}" is not one of name=, branch=, remote=, clone=, judge-links=`,
        );
      if (key === 'judge-links' && !['yes', 'no'].includes(value))
        throw new InputError(`${path}:${i + 1}: judge-links= wants yes or no, got "${value}"`);
      fields[key] = value;
    }
    const { 'judge-links': judge, ...named } = fields;
    const judged = judge === 'yes' ? { judgeLinks: true } : {};
    if (first.startsWith('github:')) {
      const github = first.slice('github:'.length);
      if (!/^[\w.-]+\/[\w.-]+$/.test(github))
        throw new InputError(`${path}:${i + 1}: github: wants OWNER/NAME, got "${github}"`);
      return [{ source: first, github, ...named, ...judged, ...(named.clone ? { clone: at(named.clone) } : {}) }];
    }
    if (named.clone)
      throw new InputError(`${path}:${i + 1}: clone= goes with a github: line; a path line is the clone itself`);
    return [{ source: at(first), clone: at(first), ...named, ...judged }];
  });
  if (repos.length === 0) throw new InputError(`--repos ${path} lists no repository`);
  return repos;
}

/** A folder name for a repository's files under the schedule's folder, unique per source. */
export function repoSlug(repo: ScheduledRepo, index: number): string {
  const name = (repo.name ?? (repo.github || basename(repo.source))).replace(/[^\w.-]+/g, '_');
  return `${index}-${name}`;
}
