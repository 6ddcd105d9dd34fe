import { posix } from 'node:path';
import { cleanEnv, git } from '../git';
import { run } from '../process/run';
import { hasCommit } from './host-repo';

/** A submodule's fetch that hangs (a server that never answers) ends here; the stage goes on without it. */
const FETCH_TIMEOUT_MS = 10 * 60_000;
/** Where a fetched submodule commit is kept alive in the clone (git gc keeps what a ref names). */
const PIN = 'refs/chainsmith/submodules/';

export interface Gitlink {
  path: string;
  sha: string;
  /** As .gitmodules gives it (relative URLs resolved against the superproject's); undefined where it names none. */
  url?: string;
  /** Its name in .gitmodules, which names its repository under the clone's `.git/modules/` too. */
  name?: string;
}

/**
 * The submodules of `sha`'s tree: its gitlinks (mode 160000 entries), each with the URL .gitmodules
 * gives it. `baseUrl` is the superproject's URL, which relative submodule URLs (`../dep.git`) are
 * resolved against, as git does.
 */
export async function gitlinks(repoPath: string, sha: string, baseUrl: string): Promise<Gitlink[]> {
  const listing = await git(repoPath, ['ls-tree', '-r', '-z', sha]);
  const links: Gitlink[] = [];
  for (const entry of listing.split('\0')) {
    const m = /^160000 commit ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (m) links.push({ sha: m[1], path: m[2] });
  }
  if (links.length === 0) return links;
  const config = await git(repoPath, ['config', '--blob', `${sha}:.gitmodules`, '--get-regexp', '^submodule\\.']).catch(
    () => '',
  );
  const byName = new Map<string, { path?: string; url?: string }>();
  for (const line of config.split('\n')) {
    const m = /^submodule\.(.+)\.(path|url) (.*)$/.exec(line);
    if (!m) continue;
    const known = byName.get(m[1]) ?? {};
    known[m[2] as 'path' | 'url'] = m[3];
    byName.set(m[1], known);
  }
  for (const link of links) {
    const named = [...byName].find(([, s]) => s.path === link.path);
    if (!named) continue;
    link.name = named[0];
    if (named[1].url) link.url = resolveUrl(baseUrl, named[1].url);
  }
  return links;
}

/** A relative submodule URL (`./x`, `../x`) taken from the superproject's URL, as git does; any other as it is. */
export function resolveUrl(base: string, url: string): string {
  if (!url.startsWith('./') && !url.startsWith('../')) return url;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(base);
  const scp = scheme ? undefined : /^[^/:]+@?[^/:]*:/.exec(base);
  const head = scheme?.[0] ?? scp?.[0] ?? '';
  const path = base.slice(head.length).replace(/\/+$/, '');
  // The superproject's URL is read as a folder: `./x` is in it, `../x` beside it.
  const joined = posix.normalize(posix.join(path, url));
  return head + (head && scheme && !joined.startsWith('/') ? `/${joined}` : joined);
}

const done = new Map<string, Promise<string[]>>();

/**
 * Brings the commits of `sha`'s submodules (and theirs, all the way down) into the clone's own object
 * store, so that every sandbox, which borrows that store read-only, can check them out with no
 * network (`checkoutLines`). Each is taken from the clone's own `.git/modules/NAME` where a recursive
 * clone holds it, else fetched from its URL; each is pinned under refs/chainsmith/submodules/. Returns
 * one line for each submodule that could not be had (its path, URL and git's reason): the stage goes on
 * without it, and a build that needs it fails with its own error.
 */
export function fetchSubmodules(repoPath: string, sha: string): Promise<string[]> {
  const key = `${repoPath}\0${sha}`;
  let known = done.get(key);
  if (!known) {
    known = fetchAll(repoPath, sha);
    done.set(key, known);
  }
  return known;
}

async function fetchAll(repoPath: string, sha: string): Promise<string[]> {
  const hasModules = await git(repoPath, ['cat-file', '-e', `${sha}:.gitmodules`]).then(
    () => true,
    () => false,
  );
  if (!hasModules) return [];
  const origin = (await git(repoPath, ['config', '--get', 'remote.origin.url']).catch(() => '')).trim() || repoPath;
  const commonDir = (await git(repoPath, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
  const missing: string[] = [];
  // A recursive clone keeps a submodule's repository at .git/modules/NAME, and its own submodules' below it.
  const walk = async (tree: string, baseUrl: string, prefix: string, modules: string): Promise<void> => {
    for (const link of await gitlinks(repoPath, tree, baseUrl)) {
      const path = prefix + link.path;
      const sources = [...(link.name ? [posix.join(modules, link.name)] : []), ...(link.url ? [link.url] : [])];
      const why = await bring(repoPath, link.sha, sources);
      if (why !== undefined) {
        const url = link.url ? withoutCredentials(link.url) : 'no URL in .gitmodules';
        missing.push(`${path} at ${link.sha.slice(0, 12)} (${url}): ${withoutCredentials(why)}`);
        continue;
      }
      await walk(link.sha, link.url ?? baseUrl, `${path}/`, posix.join(modules, link.name ?? link.path, 'modules'));
    }
  };
  await walk(sha, origin, '', posix.join(commonDir, 'modules'));
  return missing;
}

/** A URL's user and password (`https://TOKEN@host/…`) never reach a log or a reason. */
const withoutCredentials = (text: string) => text.replace(/\/\/[^/@\s]+@/g, '//');

/** Undefined once `sha` is in the clone (and pinned); else why no source gave it. */
async function bring(repoPath: string, sha: string, sources: string[]): Promise<string | undefined> {
  let why = 'nowhere to fetch it from';
  for (const source of (await hasCommit(repoPath, sha)) ? [] : sources) {
    const r = await run('git', ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', source, sha], {
      cwd: repoPath,
      baseEnv: cleanEnv({ GIT_TERMINAL_PROMPT: '0' }),
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    if (await hasCommit(repoPath, sha)) break;
    why = r.timedOut
      ? `git fetch ran past ${FETCH_TIMEOUT_MS / 60_000} minutes`
      : r.stderr.trim().split('\n').pop() || `git fetch exited ${r.exitCode}`;
  }
  if (!(await hasCommit(repoPath, sha))) return why;
  await git(repoPath, ['update-ref', `${PIN}${sha}`, sha]);
  return undefined;
}
