import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../atomic-file';

/** Bundles kept per folder; older ones (of workflow code since changed, or of other checkouts) are removed. */
const KEEP = 8;

/**
 * Where bundles are kept: the user's cache folder ($XDG_CACHE_HOME, else ~/.cache), not a data
 * directory, since a bundle depends on the code only. Workers with different CHAINSMITH_HOMEs (a
 * test's, a second host's on the same machine) share it.
 */
function workflowBundleCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'chainsmith', 'workflow-bundles');
}

const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/**
 * The workflow bundle of the workflows module at `workflowsPath`, built once per version of its code
 * and kept in `cacheDir` under the hash of that code (every file of its folder, which by the lint rules
 * imports nothing else but the SDK, and the SDK's version). Bundling costs a worker about 1.5 CPU-seconds
 * at every start: a worker restarted after a crash, the demo, and each test's worker reuse it instead.
 * Several processes may ask at once: each writes its own file and renames it into place. Where the
 * folder cannot be written, the bundle is used from memory.
 */
export async function cachedWorkflowBundle(
  workflowsPath: string,
  cacheDir = workflowBundleCacheDir(),
): Promise<WorkflowBundleOption> {
  const codePath = join(cacheDir, `workflows-${await codeHash(dirname(workflowsPath))}.js`);
  if (
    await stat(codePath).then(
      () => true,
      () => false,
    )
  )
    return { codePath };
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quietLogger });
  try {
    await writeAtomic(codePath, code);
  } catch {
    return { code };
  }
  await prune(cacheDir);
  return { codePath };
}

async function codeHash(dir: string): Promise<string> {
  const hash = createHash('sha256').update(require('@temporalio/workflow/package.json').version as string);
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
  for (const file of files.sort()) hash.update(`\0${file.slice(dir.length)}\0`).update(await readFile(file));
  return hash.digest('hex').slice(0, 16);
}

async function prune(cacheDir: string): Promise<void> {
  const bundles = (await readdir(cacheDir)).filter((name) => /^workflows-\w+\.js$/.test(name));
  const dated = await Promise.all(
    bundles.map(async (name) => ({
      name,
      mtime: (await stat(join(cacheDir, name)).catch(() => undefined))?.mtimeMs ?? 0,
    })),
  );
  for (const { name } of dated.sort((a, b) => b.mtime - a.mtime).slice(KEEP))
    await rm(join(cacheDir, name), { force: true });
}
