import { mkdir } from 'node:fs/promises';
import { ScratchRepo } from './scratch-repo';

/** A scratch repository with the verbs a release-branch history needs. */
export class ReleaseRepo extends ScratchRepo {
  private counter = 0;

  async init(): Promise<this> {
    await mkdir(this.path, { recursive: true });
    await this.run('init', '-q');
    await this.commit('Initial import', {
      'src/app.py': lines('app', 20),
      'src/util.py': lines('util', 20),
      'CHANGES.md': '# changes\n',
    });
    return this;
  }

  /** A PR branch off `from` with one commit per message, each rewriting `file` (or a fresh file). */
  async branch(name: string, from: string, messages: string[], file?: string): Promise<string> {
    await this.run('checkout', '-q', '-b', name, from);
    for (const message of messages) {
      this.counter += 1;
      await this.commit(message, { [file ?? `src/part${this.counter}.py`]: lines(`v${this.counter}`, 20) });
    }
    return (await this.run('rev-parse', 'HEAD')).trim();
  }

  /** GitHub's merge button onto `into`, with refs/pull/N/head. */
  async mergePr(number: number, into: string, branch: string, title: string): Promise<void> {
    await this.run('update-ref', `refs/pull/${number}/head`, branch);
    await this.run('checkout', '-q', into);
    await this.run(
      'merge',
      '-q',
      '--no-ff',
      '-m',
      `Merge pull request #${number} from someone/${branch}\n\n${title}`,
      branch,
    );
  }

  /** GitHub's squash button onto `into`: one commit "Title (#N)" with the branch's changes. */
  async squashPr(number: number, into: string, branch: string, title: string, body = ''): Promise<void> {
    await this.run('update-ref', `refs/pull/${number}/head`, branch);
    await this.run('checkout', '-q', into);
    await this.run('merge', '-q', '--squash', branch);
    await this.run('commit', '-q', '-m', `${title} (#${number})${body ? `\n\n${body}` : ''}`);
  }

  /** GitHub's rebase button onto `into`: the branch's commits replayed there (author and author date kept), refs/pull/N/head left on the originals. */
  async rebasePr(number: number, into: string, branch: string): Promise<void> {
    await this.run('update-ref', `refs/pull/${number}/head`, branch);
    const commits = (await this.run('rev-list', '--reverse', `${into}..${branch}`)).trim().split('\n');
    await this.run('checkout', '-q', into);
    for (const sha of commits) await this.run('cherry-pick', sha);
  }

  /** A one-commit PR off main, squashed onto main: the quickest way to a PR that says something. */
  async quickPr(number: number, title: string, body = '', files?: Record<string, string>): Promise<string> {
    await this.run('checkout', '-q', '-b', `pr-${number}`, 'main');
    await this.commit(title, files ?? { [`src/pr${number}.py`]: lines(`pr${number}`, 20) });
    await this.squashPr(number, 'main', `pr-${number}`, title, body);
    return this.sha('HEAD');
  }

  /** A merge made outside any PR ("Merge branch '3.1.x'"), as a maintainer pushes it. */
  async syncMerge(into: string, from: string): Promise<void> {
    await this.run('checkout', '-q', into);
    await this.run('merge', '-q', '--no-ff', '-m', `Merge branch '${from}'`, from);
  }

  async sha(revision: string): Promise<string> {
    return (await this.run('rev-parse', revision)).trim();
  }
}

/** `count` numbered lines, so that rewriting a file changes every line of it. */
export function lines(tag: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `${tag} line ${i + 1}\n`).join('');
}

/** `text` with lines `from`..`from + count - 1` (0-based) rewritten as `${tag} <line number>`. */
export function rewrite(text: string, from: number, count: number, tag: string): string {
  const all = text.split('\n');
  all.splice(from, count, ...Array.from({ length: count }, (_, i) => `${tag} ${from + i + 1}`));
  return all.join('\n');
}
