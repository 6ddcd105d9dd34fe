import { mkdir, writeFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git } from '../../src/git';
import { gitPatch } from '../../src/mining/landings/patch';
import type { Chain, PullRequest } from '../../src/schemas';
import { changedFiles } from './mining';

/** File contents by path; null deletes. */
export type Files = Record<string, string | Buffer | null>;

/**
 * A small repository built commit by commit for sandbox tests, with PR records for chains. Dates
 * are fixed, so the same steps always give the same SHAs (and the same environment image).
 */
export class ChainRepo {
  private clock = Date.UTC(2023, 0, 1) / 1000;

  private constructor(readonly path: string) {}

  /** `start`: the first commit's date (2023-01-01 by default); each later one is a minute on. */
  static async create(path: string, files: Files, start?: Date): Promise<ChainRepo> {
    await mkdir(path, { recursive: true });
    await git(path, ['-c', 'init.defaultBranch=main', 'init', '-q']);
    const repo = new ChainRepo(path);
    if (start) repo.clock = start.getTime() / 1000 - 60;
    await repo.commit('Initial import', files);
    return repo;
  }

  /** The next commit is dated `date` (a history that pauses for months), the ones after a minute on each. */
  at(date: Date): this {
    this.clock = date.getTime() / 1000 - 60;
    return this;
  }

  /** Commits `files` on top of the checked-out commit and returns the new SHA. */
  async commit(message: string, files: Files): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      const file = join(this.path, path);
      if (content === null) await rm(file, { force: true });
      else {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    }
    this.clock += 60;
    const date = `${this.clock} +0000`;
    const env = {
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.test',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.test',
    };
    await git(this.path, ['add', '-A']);
    await git(this.path, ['commit', '-q', '--allow-empty', '-m', message], { env });
    return this.head();
  }

  async head(): Promise<string> {
    return (await git(this.path, ['rev-parse', 'HEAD'])).trim();
  }

  async checkout(sha: string): Promise<void> {
    await git(this.path, ['checkout', '-q', '--detach', sha]);
  }

  /** A PR landed as one commit on top of the checked-out commit (a squash merge). */
  async pr(number: number, title: string, files: Files): Promise<PullRequest> {
    const baseSha = await this.head();
    const mergeSha = await this.commit(`${title} (#${number})`, files);
    return {
      number,
      title,
      body: '',
      messages: [title],
      author: 'ada',
      mergedAt: new Date(this.clock * 1000).toISOString(),
      landing: 'squash',
      baseSha,
      mergeSha,
      files: await changedFiles(this.path, baseSha, mergeSha),
      patch: await gitPatch(this.path, baseSha, mergeSha),
    };
  }

  /** The diff from `from` to `to` as the rollout stores it (binary, full index). */
  async diff(from: string, to: string): Promise<string> {
    return git(this.path, ['diff', '--binary', '--full-index', from, to]);
  }

  chain(name: string, prs: PullRequest[]): Chain {
    return { id: `${name}#${prs.map((p) => p.number).join('-')}`, repo: { name, path: this.path }, prs, edges: [] };
  }
}
