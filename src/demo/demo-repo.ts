import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git } from '../git';

export interface Person {
  name: string;
  email: string;
}

/** GitHub records itself as the committer of merge and squash commits it creates. */
const GITHUB: Person = { name: 'GitHub', email: 'noreply@github.com' };

/** The demo history starts here and every commit is one tick later. */
const START_EPOCH_SECONDS = Date.UTC(2024, 2, 4, 9, 0, 0) / 1000;
const TICK_SECONDS = 6 * 60 * 60;

/**
 * Ignore the user's and the system's git configuration: a global `commit.gpgsign`, hook path or
 * template directory would otherwise change the commits and so the SHAs.
 */
const ISOLATED_CONFIG = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const CONFIG_FLAGS = ['-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', '-c', 'gc.auto=0'];

/**
 * Writes a git history whose SHAs depend only on the calls made: identities and dates are fixed,
 * the clock advances one tick per commit.
 */
export class DemoRepo {
  private ticks = 0;

  constructor(readonly path: string) {}

  async init(): Promise<void> {
    await this.run(['init', '-q', '.']);
  }

  /** Commit files (path → content) on the current branch, authored and committed by `author`. */
  async commit(author: Person, message: string, files: Record<string, string>): Promise<void> {
    await this.writeFiles(files);
    await this.run(['add', '-A']);
    await this.run(['commit', '-q', '--cleanup=whitespace', '-m', message], author, author);
  }

  /** A squash landing: one commit on main by the PR author, committed by GitHub. */
  async squash(author: Person, message: string, files: Record<string, string>): Promise<void> {
    await this.writeFiles(files);
    await this.run(['add', '-A']);
    await this.run(['commit', '-q', '--cleanup=whitespace', '-m', message], author, GITHUB);
  }

  /** Start a PR branch from main as it stands now. */
  async branch(name: string): Promise<void> {
    await this.run(['checkout', '-q', '-b', name, 'main']);
  }

  /** A merge landing onto main; the branch is deleted afterwards, as GitHub offers to. */
  async merge(merger: Person, branch: string, message: string): Promise<void> {
    await this.run(['checkout', '-q', 'main']);
    await this.run(
      ['merge', '-q', '--no-ff', '--no-edit', '--cleanup=whitespace', '-m', message, branch],
      merger,
      GITHUB,
    );
    await this.run(['branch', '-q', '-D', branch]);
  }

  async head(): Promise<string> {
    return (await this.run(['rev-parse', 'HEAD'])).trim();
  }

  /** No staged, modified or untracked files (ignored ones, like __pycache__, do not count). */
  async isClean(): Promise<boolean> {
    return (await this.run(['status', '--porcelain'])).trim() === '';
  }

  private async writeFiles(files: Record<string, string>): Promise<void> {
    for (const [relative, content] of Object.entries(files)) {
      const target = join(this.path, relative);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  }

  private async run(args: string[], author?: Person, committer?: Person): Promise<string> {
    const env: Record<string, string> = { ...ISOLATED_CONFIG };
    if (author && committer) {
      const date = `${START_EPOCH_SECONDS + this.ticks * TICK_SECONDS} +0000`;
      this.ticks += 1;
      Object.assign(env, {
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: committer.name,
        GIT_COMMITTER_EMAIL: committer.email,
        GIT_COMMITTER_DATE: date,
      });
    }
    return git(this.path, [...CONFIG_FLAGS, ...args], { env });
  }
}
