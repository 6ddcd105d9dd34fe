import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import type { Resolution } from '../../contract';
import { runTool, type ToolRun } from '../../host-tools';
import { mustRun, type Explain } from '../host-command';
import {
  GIT_STUBS,
  STUB_FREE,
  stubbedBuilds,
  stubEnv,
  unfetchedGit,
  unfetchedGitSummary,
  writeGitStub,
  type GitStub,
} from './git-stubs';
import { registryPins, workspaceRegistry, yankedRequirement, yankedStandIn, type YankedPin } from './yanked';

/** More stand-ins than a resolution here has needed: a bound on the retries, not a limit met. */
const MAX_STAND_INS = 10;

/** A failed cargo run that could not fetch a git dependency, named (git-stubs.ts). */
export const explainGit: Explain = (output) => {
  const summary = unfetchedGitSummary(output);
  return summary ? { kind: 'dependencies-unresolvable', summary } : undefined;
};

/**
 * `cargo generate-lockfile` in a copy of the checkout, going on past two things the date of a crate
 * state alone does not decide: a git dependency the host cannot fetch (a stub repository, git-stubs.ts)
 * and, resolving as of a date, a requirement whose every release of that date was yanked since (its
 * newest then, yanked.ts). Each is said in `notes`.
 */
export class LockResolver {
  readonly stubs: GitStub[] = [];
  private readonly pins: Array<YankedPin & { path: string }> = [];
  private standIns?: string;

  constructor(
    private readonly run: { cwd: string; signal?: AbortSignal; env: Record<string, string> },
    private readonly depsDir: string,
  ) {}

  /** How cargo runs in the copy: the caller's environment, with git reading the stubs. */
  get options(): { cwd: string; signal?: AbortSignal; env: Record<string, string> } {
    return { ...this.run, env: { ...this.run.env, ...stubEnv(join(this.depsDir, GIT_STUBS), this.stubs) } };
  }

  /** A lock of crates published by `asOf` (none: today's), past unfetchable git dependencies and yanked requirements. */
  async generate(asOf?: string): Promise<ToolRun> {
    // Yanked versions are chosen by a date: an undated resolution takes none.
    if (!asOf) this.pins.length = 0;
    for (;;) {
      const patches = this.pins.flatMap((p) => [
        '--config',
        `patch.crates-io.${JSON.stringify(p.name)}.path=${JSON.stringify(p.path)}`,
      ]);
      const dated = asOf ? ['-Zunstable-options', '--publish-time', asOf] : [];
      const r = await runTool('cargo', ['generate-lockfile', ...dated, ...patches], this.options);
      if (r.code === 0 || this.stubs.length + this.pins.length >= MAX_STAND_INS) return r;
      const git = unfetchedGit(r.stderr);
      if (git && !this.stubs.some((s) => s.url === git.url)) {
        await writeGitStub(join(this.depsDir, GIT_STUBS), git, this.stubs);
        continue;
      }
      const yanked = asOf ? yankedRequirement(r.stderr) : undefined;
      if (!yanked || this.pins.some((p) => p.name === yanked.name)) return r;
      this.standIns ??= await mkdtemp(join(tmpdir(), 'chainsmith-yanked-'));
      const pin = await yankedStandIn(yanked, new Date(asOf!), this.standIns);
      if (!pin) return r;
      this.pins.push(pin);
    }
  }

  /**
   * After the lock: the yanked versions it was resolved with named from the registry again (yanked.ts),
   * then whether the tested crate needs a stub, which nothing replaces. Notes what was done.
   */
  async finish(asOf: string): Promise<{ notes: string[]; unserved: NonNullable<Resolution['unserved']> }> {
    const notes = this.pins.length ? await this.registryAgain(asOf) : [];
    const { needed, packages } = await stubbedBuilds(this.stubs, this.options);
    if (needed) {
      const summary = `the git dependency \`${needed.name}\` (${needed.url}) cannot be fetched from this host, and the tested crate builds it`;
      throw new StageError(summary, { reason: stageReason('dependencies-unresolvable', summary) });
    }
    if (packages) {
      await writeFile(join(this.depsDir, GIT_STUBS, STUB_FREE), packages.map((p) => `${p}\n`).join(''));
      notes.push(`the image builds ${packages.join(', ')}, the root's packages that build no stand-in`);
    }
    const unserved = this.stubs.map((s) => ({
      name: s.name,
      why: `its git repository ${s.url} cannot be fetched from this host; a stand-in that does not compile takes its place, which the tested crate does not build`,
    }));
    for (const u of unserved) notes.push(`${u.name} left out: ${u.why}`);
    return { notes, unserved };
  }

  /** Each stand-in named as its registry's in the lock, which cargo completes keeping the yanked version. */
  private async registryAgain(asOf: string): Promise<string[]> {
    const lockPath = join(this.run.cwd, 'Cargo.lock');
    const before = await readFile(lockPath, 'utf8');
    const metadata = ['metadata', '--no-deps', '--format-version', '1'];
    const registry = workspaceRegistry((await mustRun('cargo metadata', 'cargo', metadata, this.options)).stdout);
    if (!registry)
      throw new StageError(`the workspace names no registry for ${this.pins.map((p) => p.name).join(', ')}`);
    await writeFile(lockPath, registryPins(before, this.pins, registry));
    await mustRun('cargo update --workspace', 'cargo', ['update', '--workspace'], this.options);
    const had = new Set(lockedPackages(before).map((p) => `${p.name} ${p.version}`));
    const added = lockedPackages(await readFile(lockPath, 'utf8')).filter(
      (p) => !had.has(`${p.name} ${p.version}`) && !this.pins.some((q) => q.name === p.name),
    );
    return [
      ...this.pins.map(
        (p) =>
          `${p.name} ${p.version}, yanked since, is the newest release of ${p.name} ${p.req} published by ${asOf.slice(0, 10)}: cargo takes no yanked version without a lock, so the lock was resolved with it`,
      ),
      ...(added.length
        ? [`${added.map((p) => `${p.name} ${p.version}`).join(', ')}: what those need besides, resolved undated`]
        : []),
    ];
  }

  async close(): Promise<void> {
    if (this.standIns) await rm(this.standIns, { recursive: true, force: true });
  }
}

/** The registry and git packages of a Cargo.lock (the workspace's own packages have no source). */
export function lockedPackages(lock: string): Array<{ name: string; version: string }> {
  const packages: Array<{ name: string; version: string }> = [];
  for (const block of lock.split(/^\[\[package\]\]$/m).slice(1)) {
    const name = /^name = "([^"]+)"/m.exec(block)?.[1];
    const version = /^version = "([^"]+)"/m.exec(block)?.[1];
    if (name && version && /^source = /m.test(block)) packages.push({ name, version });
  }
  return packages;
}
