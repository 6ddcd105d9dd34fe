import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git } from '../../src/git';

const IDENTITY = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Tess Ter',
  GIT_AUTHOR_EMAIL: 'tess@example.test',
  GIT_COMMITTER_NAME: 'Tess Ter',
  GIT_COMMITTER_EMAIL: 'tess@example.test',
};

/** A throwaway repository for landing styles the demo does not use. */
export class ScratchRepo {
  private clock = Date.UTC(2023, 0, 1) / 1000;

  constructor(readonly path: string) {}

  /** Lets time pass before the next commit, as between PRs months apart. */
  advance(days: number): void {
    this.clock += days * 86_400;
  }

  async run(...args: string[]): Promise<string> {
    this.clock += 3600;
    const date = `${this.clock} +0000`;
    return git(this.path, ['-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], {
      env: { ...IDENTITY, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  }

  /** Write (string or bytes) or delete (null) files, then commit everything. */
  async commit(message: string, files: Record<string, string | Buffer | null>): Promise<void> {
    for (const [relative, content] of Object.entries(files)) {
      const target = join(this.path, relative);
      if (content === null) {
        await rm(target);
      } else {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content);
      }
    }
    await this.run('add', '-A');
    await this.run('commit', '-q', '-m', message);
  }
}
