import { join } from 'node:path';
import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import type { Resolution } from '../../contract';
import { runTool, type ToolRun } from '../../host-tools';
import type { Explain } from '../host-command';
import {
  GIT_STUBS,
  neededStub,
  stubEnv,
  unfetchedGit,
  unfetchedGitSummary,
  writeGitStub,
  type GitStub,
} from './git-stubs';

/** More stand-ins than a resolution here has needed: a bound on the retries, not a limit met. */
const MAX_STAND_INS = 10;

/** A failed cargo run that could not fetch a git dependency, named (git-stubs.ts). */
export const explainGit: Explain = (output) => {
  const summary = unfetchedGitSummary(output);
  return summary ? { kind: 'dependencies-unresolvable', summary } : undefined;
};

/**
 * `cargo generate-lockfile` in a copy of the checkout, going on past a git dependency the host cannot
 * fetch (a stub repository, git-stubs.ts), which is said in `notes`.
 */
export class LockResolver {
  readonly stubs: GitStub[] = [];

  constructor(
    private readonly run: { cwd: string; signal?: AbortSignal; env: Record<string, string> },
    private readonly depsDir: string,
  ) {}

  /** How cargo runs in the copy: the caller's environment, with git reading the stubs. */
  get options(): { cwd: string; signal?: AbortSignal; env: Record<string, string> } {
    return { ...this.run, env: { ...this.run.env, ...stubEnv(join(this.depsDir, GIT_STUBS), this.stubs) } };
  }

  /** A lock of crates published by `asOf` (none: today's), past unfetchable git dependencies. */
  async generate(asOf?: string): Promise<ToolRun> {
    for (;;) {
      const dated = asOf ? ['-Zunstable-options', '--publish-time', asOf] : [];
      const r = await runTool('cargo', ['generate-lockfile', ...dated], this.options);
      if (r.code === 0 || this.stubs.length >= MAX_STAND_INS) return r;
      const git = unfetchedGit(r.stderr);
      if (!git || this.stubs.some((s) => s.url === git.url)) return r;
      await writeGitStub(join(this.depsDir, GIT_STUBS), git, this.stubs);
    }
  }

  /** Whether the tested crate needs a stub, which nothing replaces; notes what was left out. */
  async finish(): Promise<{ notes: string[]; unserved: NonNullable<Resolution['unserved']> }> {
    const notes: string[] = [];
    const needed = await neededStub(this.stubs, this.options);
    if (needed) {
      const summary = `the git dependency \`${needed.name}\` (${needed.url}) cannot be fetched from this host, and the tested crate builds it`;
      throw new StageError(summary, { reason: stageReason('dependencies-unresolvable', summary) });
    }
    const unserved = this.stubs.map((s) => ({
      name: s.name,
      why: `its git repository ${s.url} cannot be fetched from this host; a stand-in that does not compile takes its place, which the tested crate does not build`,
    }));
    for (const u of unserved) notes.push(`${u.name} left out: ${u.why}`);
    return { notes, unserved };
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
