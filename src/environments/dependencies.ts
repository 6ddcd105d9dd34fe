import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainsmithError, StageError, ToolchainTooOld, TransientError, UnexplainedFailure } from '../errors';
import type { Resolution } from './contract';
import type { Recipe } from './languages';
import { runTool } from './host-tools';
import { run } from '../process/run';
import { cleanEnv } from '../git';
import { stageReason } from '../stage-reason';
import { storeSettled } from './store';
import { sharedWhileRunning } from '../shared-promise';

export interface FetchedDependencies {
  /** Mounted read-only at DEPS_MOUNT in the build. */
  dir: string;
  key: string;
  resolution: Resolution;
  fetchSeconds: number;
}

export interface FetchRequest {
  repoName: string;
  repoPath: string;
  sha: string;
  recipe: Recipe;
  /** The cache key: the same repository history, manifests and resolution date fetch the same things. */
  key: string;
  asOf: Date;
  /** The stage PR's merge, where it changes a manifest and the recipe takes the merge's dependencies in (LanguageRecipe.withMerged). */
  merged?: { sha: string; asOf: Date };
  /** The repository's dependency store (LanguageRecipe.dependencyStore), which the fetcher may read (FetchContext.store). */
  store?: string;
  /** Packages to raise to their newest allowed releases (FetchContext.raise); part of `key`. */
  raise?: string[];
  log(line: string): void;
  signal?: AbortSignal;
}

/**
 * Dependencies fetched on the worker's host, kept in `${dataDir}/deps/KEY/` (files/ is what the build
 * mounts, resolution.json what was resolved). A second build with the same key, another era of the
 * same repository whose manifests did not change, uses them without asking any registry. A fetch
 * writes into a temporary directory renamed into place when complete, so a crash leaves no half cache.
 */
export class DependencyCache {
  private readonly fetches = new Map<string, Promise<FetchedDependencies>>();

  constructor(private readonly dataDir: string) {}

  /** What an earlier fetch with this key left on disk, without fetching; undefined where none did. */
  async cached(key: string): Promise<FetchedDependencies | undefined> {
    const done = join(this.dataDir, 'deps', key);
    await this.tooOld(key);
    if (!existsSync(join(done, 'resolution.json'))) return undefined;
    const resolution = JSON.parse(await readFile(join(done, 'resolution.json'), 'utf8')) as Resolution & {
      fetchSeconds?: number;
    };
    return { dir: join(done, 'files'), key, resolution, fetchSeconds: resolution.fetchSeconds ?? 0 };
  }

  /**
   * Remembers that what this key fetches needs a newer toolchain (from the fetch or the build), so
   * that a later process goes to the recipe's fallback without fetching or building again.
   */
  async markTooOld(key: string, message: string): Promise<void> {
    await mkdir(join(this.dataDir, 'deps'), { recursive: true });
    await writeFile(join(this.dataDir, 'deps', `${key}.too-old`), message);
  }

  /** Remembers the packages a build of what this key fetches showed stale (LanguageRecipe.stale), for every later process too. */
  async markStale(key: string, packages: string[]): Promise<void> {
    await mkdir(join(this.dataDir, 'deps'), { recursive: true });
    await writeFile(join(this.dataDir, 'deps', `${key}.stale`), `${packages.join('\n')}\n`);
  }

  /** The packages markStale recorded for this key; empty where none. */
  async stale(key: string): Promise<string[]> {
    const text = await readFile(join(this.dataDir, 'deps', `${key}.stale`), 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean);
  }

  private async tooOld(key: string): Promise<void> {
    const marker = join(this.dataDir, 'deps', `${key}.too-old`);
    if (existsSync(marker)) throw new ToolchainTooOld(await readFile(marker, 'utf8'));
  }

  get(req: FetchRequest): Promise<FetchedDependencies> {
    return sharedWhileRunning(this.fetches, req.key, () =>
      this.fetch(req).catch((first) =>
        first instanceof UnexplainedFailure ? this.fetchAgain(req, first) : Promise.reject(first),
      ),
    );
  }

  /**
   * A fetch whose failure showed no known cause, tried once more: a second unexplained failure is the
   * stage's permanent reason (a retry would most likely meet it again), anything else goes as it is.
   */
  private async fetchAgain(req: FetchRequest, first: UnexplainedFailure): Promise<FetchedDependencies> {
    req.log(
      `fetching the dependencies of ${req.repoName} at ${req.sha.slice(0, 12)} failed with no known cause; trying once more: ${first.message.split('\n')[0]}`,
    );
    try {
      return await this.fetch(req);
    } catch (err) {
      if (!(err instanceof UnexplainedFailure)) throw err;
      const reason = {
        ...err.reason,
        summary: `${err.reason.summary} (failed twice, with no known cause in its output)`,
      };
      throw new StageError(
        `the dependencies of ${req.repoName} at ${req.sha.slice(0, 12)} cannot be fetched: ${err.message}`,
        { cause: err, reason },
      );
    }
  }

  private async fetch(req: FetchRequest): Promise<FetchedDependencies> {
    const root = join(this.dataDir, 'deps');
    const done = join(root, req.key);
    const cached = await this.cached(req.key);
    if (cached) return cached;
    await mkdir(root, { recursive: true });
    await sweepPartials(root);
    const partial = join(root, `.partial-${req.key}-${randomBytes(4).toString('hex')}`);
    const src = await mkdtemp(join(tmpdir(), 'chainsmith-src-'));
    const start = Date.now();
    try {
      const fetchAt = async (sha: string, asOf: Date, depsDir: string) => {
        await mkdir(depsDir, { recursive: true });
        await rm(src, { recursive: true, force: true });
        await mkdir(src, { recursive: true });
        await hostCheckout(req.repoPath, sha, src);
        req.log(
          `fetching the dependencies of ${req.repoName} at ${sha.slice(0, 12)} on the host (${req.recipe.origin})`,
        );
        return req.recipe.fetch!({
          srcDir: src,
          depsDir,
          asOf,
          log: req.log,
          signal: req.signal ?? new AbortController().signal,
          toolsDir: join(this.dataDir, 'tools'),
          ...(req.raise?.length ? { raise: req.raise } : {}),
          // Asked at each fetch: what another process is adding right now is not whole yet.
          ...(req.store && (await storeSettled(req.store)) ? { store: req.store } : {}),
        }).catch((err) => {
          if (err instanceof ChainsmithError) throw err;
          throw new TransientError(`fetching the dependencies of ${req.repoName} failed: ${(err as Error).message}`, {
            cause: err,
          });
        });
      };
      const files = join(partial, 'files');
      const { merged } = req;
      const how = req.recipe.withMerged;
      /**
       * The merge's manifests resolved as of the base's date first: a requirement the PR leaves alone
       * then resolves as the base's does, and a PR that changes no requirement (metadata, a rename)
       * shares the base's resolution instead of one from months later. Only where that fails (a floor
       * the PR raises past what was published by then) as of the merge's own date; so too where the
       * fetcher could resolve it only undated (no `asOf`: cargo's last resort, today's crates), which
       * took http #763's rand 0.9 with a 2026 wit-bindgen of edition 2024 that no cargo here parses.
       */
      const fetchMerge = async (dir: string): Promise<Resolution> => {
        if (!merged) throw new Error('no merge to fetch');
        // Pinned versions resolve the same whatever the date.
        if (req.recipe.pinned || merged.asOf.getTime() <= req.asOf.getTime())
          return fetchAt(merged.sha, merged.asOf, dir);
        const later = async (why: string) => {
          req.log(
            `the manifests of the PR's merge ${merged.sha.slice(0, 12)} ${why} as of the base's date ${req.asOf.toISOString().slice(0, 10)}; as of their own, ${merged.asOf.toISOString().slice(0, 10)}`,
          );
          await rm(dir, { recursive: true, force: true });
          return fetchAt(merged.sha, merged.asOf, dir);
        };
        let atBase: Resolution;
        try {
          atBase = await fetchAt(merged.sha, req.asOf, dir);
        } catch (err) {
          if (!(err instanceof StageError || err instanceof UnexplainedFailure) || err instanceof ToolchainTooOld)
            throw err;
          return later('do not resolve');
        }
        // A lock the merge commits decides every version, whatever the date (the base may have had none).
        return atBase.asOf || atBase.lock === 'committed' ? atBase : later('resolve only undated');
      };
      let resolution: Resolution;
      if (merged && how === 'separate') {
        resolution = await fetchAt(req.sha, req.asOf, files);
        const mergedDir = join(files, 'merged');
        const atMerge = await fetchMerge(mergedDir);
        const names = (r: Resolution) =>
          r.packages
            .map((p) => `${p.name.toLowerCase()}@${p.version}`)
            .sort()
            .join(' ');
        if (names(atMerge) === names(resolution)) {
          await rm(mergedDir, { recursive: true, force: true });
          resolution.notes.push(
            `the manifests of the PR's merge ${merged.sha.slice(0, 12)} resolve to the same packages: one installation serves both`,
          );
        } else {
          resolution = {
            ...resolution,
            merged: { ...(atMerge.asOf ? { asOf: atMerge.asOf } : {}), packages: atMerge.packages },
          };
          resolution.notes.push(
            `the manifests of the PR's merge ${merged.sha.slice(0, 12)} resolve apart (${atMerge.packages.length} packages), installed beside the base's for test runs after a change`,
          );
        }
      } else if (merged && typeof how === 'function') {
        resolution = await fetchAt(req.sha, req.asOf, files);
        const mergedDir = join(partial, 'merged');
        const atMerge = await fetchMerge(mergedDir);
        await how(files, mergedDir);
        await rm(mergedDir, { recursive: true, force: true });
        const have = new Set(resolution.packages.map((p) => `${p.name}@${p.version}`));
        const added = atMerge.packages.filter((p) => !have.has(`${p.name}@${p.version}`));
        // What neither served: the base's, and what the merge's manifests add.
        const unserved = [...(resolution.unserved ?? [])];
        for (const u of atMerge.unserved ?? []) if (!unserved.some((b) => b.name === u.name)) unserved.push(u);
        resolution = {
          ...resolution,
          ...(unserved.length ? { unserved } : {}),
          packages: [...resolution.packages, ...added].sort(
            (a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version),
          ),
        };
        resolution.notes.push(
          `with what the manifests of the PR's merge ${merged.sha.slice(0, 12)} need (${added.length} more packages)`,
        );
      } else {
        resolution = await fetchAt(req.sha, req.asOf, files);
      }
      const fetchSeconds = Math.round((Date.now() - start) / 100) / 10;
      await writeFile(join(partial, 'resolution.json'), JSON.stringify({ ...resolution, fetchSeconds }, null, 2));
      // The build reads it as the unprivileged agent user, whatever the worker's umask was.
      const readable = await runTool('chmod', ['-R', 'a+rX', partial]);
      if (readable.code !== 0) throw new TransientError(`cannot make ${partial} readable: ${readable.stderr.trim()}`);
      await rename(partial, done).catch(async (err) => {
        // Another process finished the same fetch first: theirs is as good.
        if (!existsSync(join(done, 'resolution.json'))) throw err;
        await rm(partial, { recursive: true, force: true });
      });
      return { dir: join(done, 'files'), key: req.key, resolution, fetchSeconds };
    } catch (err) {
      await rm(partial, { recursive: true, force: true });
      if (err instanceof ToolchainTooOld) {
        await this.markTooOld(req.key, err.message);
        throw err;
      }
      if (err instanceof StageError) {
        const reason = err.reason ?? stageReason('dependencies-unresolvable', err.message);
        throw new StageError(
          `the dependencies of ${req.repoName} at ${req.sha.slice(0, 12)} cannot be fetched: ${err.message}`,
          { cause: err, reason },
        );
      }
      throw err;
    } finally {
      await rm(src, { recursive: true, force: true });
    }
  }
}

/** Fetches a killed process left half done, a day old or more (a running fetch is younger). */
async function sweepPartials(root: string): Promise<void> {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of await readdir(root)) {
    if (!name.startsWith('.partial-')) continue;
    const path = join(root, name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtimeMs < dayAgo) await rm(path, { recursive: true, force: true });
  }
}

/**
 * The commit `sha` checked out in a directory of its own, as a repository that borrows the clone's
 * objects (git alternates) and holds its tags: a build that takes its version from git
 * (setuptools_scm, pbr, a Maven plugin that reads the commit) finds one here, as it does in the
 * environment's checkout, where a bare tree made it fail ("unable to detect version"). Nothing is
 * copied but the tree; the user's clone and its work tree are not touched.
 */
export async function hostCheckout(repoPath: string, sha: string, dir: string): Promise<void> {
  const r = await run(
    'bash',
    [
      '-o',
      'pipefail',
      '-ec',
      [
        'objects="$(git -C "$1" rev-parse --path-format=absolute --git-common-dir)/objects"',
        'git init -q "$3"',
        'echo "$objects" > "$3/.git/objects/info/alternates"',
        'git -C "$1" for-each-ref --format=\'create %(refname) %(objectname)\' refs/tags | git -C "$3" update-ref --stdin',
        'git -C "$3" checkout -q --detach "$2"',
      ].join('\n'),
      'checkout',
      repoPath,
      sha,
      dir,
    ],
    { baseEnv: cleanEnv({ GIT_LFS_SKIP_SMUDGE: '1' }) },
  );
  if (r.exitCode !== 0)
    throw new TransientError(
      `cannot check out ${sha} of ${repoPath} on the host: ${(r.startError?.message ?? r.stderr).trim()}`,
    );
}
