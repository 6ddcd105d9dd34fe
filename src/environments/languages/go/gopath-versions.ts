import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import { runTool } from '../../host-tools';
import { RecentMap } from '../../../recent-map';
import { lockedFor, type LockedRevision } from './gopath-locks';

/** A module version chosen for a GOPATH-era build, with its source directory in the host's download cache. */
export interface ChosenModule {
  module: string;
  version: string;
  dir: string;
  note: string;
  /**
   * 'out-of-era' where nothing published by the date exists (the oldest tag, or the latest commit);
   * 'required' where a fetched module's go.mod requires a newer version than the era's.
   */
  how: 'locked' | 'by-date' | 'out-of-era' | 'required';
}

/**
 * What the go command says where the proxy has no such module, package or version; and where it then
 * went to the module's own host (`direct`, which it does only after the proxy's 404 or 410) and failed.
 */
const NOT_SERVED =
  /\b(400|403|404|410)\b|not found|unknown revision|invalid version|no matching versions|unrecognized import path|malformed module path|invalid module path|missing dot in first path element|checksum mismatch|git ls-remote|fatal: unable to access/i;

/**
 * The proxy's answers about module paths and versions (a module's tagged versions, when a version was
 * published), shared by every fetch of the process: a GOPATH-era history asks the same of the same
 * modules at each of its stages, and each answer is a go command (on cobra's whole history the fetches'
 * go commands fell from 889 to 391, and their CPU from 53 to 42 s, by process accounting). Keyed by the
 * question and the go command's environment without its download cache, so a fetch against another
 * proxy asks again. A failure (the proxy or the network failing) is not kept.
 */
const answers = new RecentMap<string, Promise<unknown>>(4096);

/**
 * Asks the host's module proxy (through the go command and the host's own configuration, in module
 * mode outside any module) about module paths and versions. `env` carries the download cache.
 */
export class ModuleProxy {
  constructor(private readonly run: { cwd: string; env: Record<string, string>; signal: AbortSignal }) {}

  /** The tagged versions of `module`, oldest first; undefined where the proxy knows no such module. */
  versions(module: string): Promise<string[] | undefined> {
    return this.shared(['list', '-m', '-versions', '-json', module], (r: { Versions?: string[] } | undefined) =>
      r ? (r.Versions ?? []) : undefined,
    );
  }

  /** When `module@version` was published (for a pseudo-version, its commit's time). */
  time(module: string, version: string): Promise<Date | undefined> {
    return this.shared(['list', '-m', '-json', `${module}@${version}`], (r: { Time?: string } | undefined) =>
      r?.Time ? new Date(r.Time) : undefined,
    );
  }

  /** The answer to `args` from `answers`, or asked now and kept there once it comes. */
  private shared<T, R>(args: string[], read: (r: T | undefined) => R): Promise<R> {
    const { GOMODCACHE: _cache, ...env } = this.run.env;
    const key = `${JSON.stringify(env)} ${args.join(' ')}`;
    const known = answers.get(key) as Promise<R> | undefined;
    if (known) return known;
    const asked = this.json<T>(args).then(read);
    answers.set(key, asked);
    asked.catch(() => answers.delete(key));
    return asked;
  }

  /** Downloads `module@query` (a version, a revision, `latest`) and says which version it is and where its source is. */
  async download(module: string, query: string): Promise<{ version: string; dir: string } | undefined> {
    const r = await this.json<{ Version?: string; Dir?: string; Error?: string }>([
      'mod',
      'download',
      '-json',
      `${module}@${query}`,
    ]);
    return r?.Version && r.Dir && !r.Error ? { version: r.Version, dir: r.Dir } : undefined;
  }

  /**
   * The go command's JSON answer; undefined where the proxy has no such module or version. Any other
   * failure (the proxy or the network failing) is no answer about the module, and fails the fetch:
   * taken for "not served", it would leave a module out of an environment that is kept.
   */
  private async json<T>(args: string[]): Promise<T | undefined> {
    const r = await runTool('go', args, this.run);
    // `go mod download -json` reports its error in the JSON on stdout.
    const said = `${r.stderr}\n${r.stdout}`;
    if (r.code !== 0 && NOT_SERVED.test(said)) return undefined;
    if (r.code !== 0) {
      const why = `go ${args.join(' ')} failed, which says nothing of the module: ${said.trim().split('\n').slice(-3).join(' | ')}`;
      throw new StageError(why, { reason: stageReason('dependencies-unresolvable', why) });
    }
    try {
      return JSON.parse(r.stdout) as T;
    } catch {
      return undefined;
    }
  }
}

/**
 * The newest of `versions` (oldest first) published at or before `asOf`, found by bisection: tags are
 * published in version order far more often than not, and a module of the era can have a thousand.
 */
async function newestBefore(proxy: ModuleProxy, module: string, versions: string[], asOf: Date) {
  let [lo, hi] = [0, versions.length - 1];
  let found: string | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const time = await proxy.time(module, versions[mid]);
    if (time && time <= asOf) {
      found = versions[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The version of `module` a build of `asOf` takes: the revision a lock file pins where the proxy
 * serves it, else the newest tag published by then, else (with a note) the oldest tag, or the latest
 * commit of a module never tagged. Code of the era imports a module without a /vN suffix, whose list
 * holds only v0, v1 and +incompatible versions. Undefined where the proxy serves none.
 */
export async function chooseVersion(
  proxy: ModuleProxy,
  module: string,
  asOf: Date,
  locks: LockedRevision[],
): Promise<ChosenModule | undefined> {
  const day = asOf.toISOString().slice(0, 10);
  const locked = lockedFor(locks, module);
  if (locked) {
    const got = await proxy.download(module, locked.revision);
    if (got) return { module, ...got, note: `${locked.file} pins ${locked.revision}`, how: 'locked' };
  }
  const listed = await proxy.versions(module);
  if (!listed) return undefined;
  // Pre-releases only where there is nothing else, as the go command's own `latest` does (hcl's vault-N forks).
  const releases = listed.filter((v) => !v.replace(/\+incompatible$/, '').includes('-'));
  const versions = releases.length ? releases : listed;
  const lockNote = locked ? `${locked.file} pins ${locked.revision}, which the proxy does not serve; ` : '';
  const dated = await newestBefore(proxy, module, versions, asOf);
  const query = dated ?? versions[0] ?? 'latest';
  const note = dated
    ? `${lockNote}the newest version published by ${day}`
    : versions.length
      ? `${lockNote}no version published by ${day}: the oldest`
      : `${lockNote}never tagged: its latest commit`;
  const got = await proxy.download(module, query);
  return got ? { module, ...got, note, how: dated ? 'by-date' : 'out-of-era' } : undefined;
}
