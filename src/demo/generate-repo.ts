import { access, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DemoRepo } from './demo-repo';
import { DemoDirectoryError } from './errors';
import { writeTallyHistory } from './tally-history';

/**
 * HEAD of the demo history. The history is deterministic, so this only changes when the history
 * does; the demo tests fail until it is updated.
 */
export const DEMO_HEAD = '3f385f7bc57bc972cd667e20361c65ede04c2ce4';

/** Written into .git on creation: lets a rerun replace a stale or half-built demo, and nothing else. */
const MARKER = 'chainsmith-demo';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function isIntactDemo(path: string): Promise<boolean> {
  if (!(await exists(join(path, '.git', MARKER)))) return false;
  const repo = new DemoRepo(path);
  try {
    return (await repo.head()) === DEMO_HEAD && (await repo.isClean());
  } catch {
    return false; // e.g. a repository with no commits yet
  }
}

/** Empty the way for a fresh build, but never delete a directory this module did not create. */
async function clear(path: string): Promise<void> {
  if (!(await exists(path))) return;
  const entries = await readdir(path);
  if (entries.length > 0 && !(await exists(join(path, '.git', MARKER)))) throw new DemoDirectoryError(path);
  await rm(path, { recursive: true, force: true });
}

/**
 * Creates the demo repository "tally" in `dir` (a small Python package whose PRs #2 → #4 → #6 form
 * a chain), or returns the existing one if it is already there unchanged.
 */
export async function generateDemoRepo(dir: string): Promise<{ path: string; head: string }> {
  const path = resolve(dir);
  if (await isIntactDemo(path)) return { path, head: DEMO_HEAD };

  await clear(path);
  await mkdir(path, { recursive: true });
  const repo = new DemoRepo(path);
  await repo.init();
  await writeFile(join(path, '.git', MARKER), 'created by chainsmith generateDemoRepo\n');
  await writeTallyHistory(repo);
  return { path, head: await repo.head() };
}
