import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../src/git';

/** File contents by path; null deletes. */
export type FileChanges = Record<string, string | null>;

export interface CommitSpec {
  message: string;
  files: FileChanges;
  author?: string;
}

/**
 * How a PR reaches main: GitHub's merge button ("Merge pull request #N from …"), a merge titled
 * "Title (#N)", GitHub's squash button, its rebase button (each commit replayed onto main with its
 * author, author date and message, committed anew), or by hand, where only refs/pull/N/head tells it
 * was a PR: a local `git merge` ("Merge branch '…'") or a fast-forward.
 */
export type LandingStyle = 'merge' | 'merge-titled' | 'squash' | 'rebase' | 'hand-merge' | 'fast-forward';

export interface PrSpec {
  number: number;
  title: string;
  /** Squash landings put it into the commit message; GitHub keeps a merge's description off git. */
  body?: string;
  commits: CommitSpec[];
  landing: LandingStyle;
  /** Write refs/pull/N/head, as `git fetch origin '+refs/pull/*\/head:refs/pull/*\/head'` would. */
  pullRef?: boolean;
  author?: string;
  /** When it lands (ISO): its landing commit's date, its own commits a minute apart before it. */
  mergedAt?: string;
  /** A rebase landing that replays only the PR's last this many commits (a maintainer dropped the others). */
  replayed?: number;
}

type Tree = ReadonlyMap<string, string>;

interface PendingCommit {
  mark: number;
  message: string;
  author: string;
  time: number;
  from?: number;
  merges: number[];
  changes: Map<string, string | null>;
  /** A replayed commit keeps its author and author date; the committer is who replayed it, now. */
  authored?: { author: string; time: number };
}

interface Tip {
  mark: number;
  tree: Tree;
}

/** `{{sha:N}}` in a message becomes the SHA of the commit that landed PR #N. */
const LANDING_SHA = /\{\{sha:(\d+)\}\}/g;
const NAMES_LANDING_SHA = /\{\{sha:\d+\}\}/;

/**
 * Writes a repository history with GitHub's landing styles through `git fast-import`, so even
 * tens of thousands of PRs take seconds. Commit dates advance a minute per commit (or jump ahead to a
 * PR's `mergedAt`), so the same building steps always give the same SHAs.
 */
export class HistoryBuilder {
  private readonly commits: PendingCommit[] = [];
  private clock = Date.UTC(2022, 0, 1) / 1000;
  private tip: Tip;
  private readonly refs = new Map<string, number>();
  private readonly landings = new Map<number, number>();
  /** Mainline tips after each step, so a PR can fork from an older main. */
  private readonly history: Tip[] = [];

  constructor(
    initialFiles: FileChanges = { 'README.md': '# project\n' },
    private readonly defaultAuthor = 'Ada Lovelace',
  ) {
    this.tip = this.commit('Initial import', defaultAuthor, undefined, [], apply(new Map(), initialFiles));
    this.history.push(this.tip);
  }

  /** A commit pushed straight to main. */
  direct(commit: CommitSpec): this {
    this.tip = this.commit(
      commit.message,
      commit.author ?? this.defaultAuthor,
      this.tip,
      [],
      apply(this.tip.tree, commit.files),
    );
    this.history.push(this.tip);
    return this;
  }

  /** Forks a branch from main (`forkBack` steps ago), commits on it and lands it. */
  pr(spec: PrSpec, forkBack = 0): this {
    const fork = this.history[Math.max(0, this.history.length - 1 - forkBack)];
    const replayed = spec.replayed ?? spec.commits.length;
    const landingCommits = { 'fast-forward': 0, rebase: replayed }[spec.landing as string] ?? 1;
    if (spec.mergedAt) this.landAt(spec.mergedAt, spec.commits.length + landingCommits);
    const head = this.branch(spec, fork);
    const author = spec.author ?? this.defaultAuthor;
    // What the branch changed, put onto today's main (branches here never conflict with main).
    const landed = apply(this.tip.tree, Object.fromEntries(difference(fork.tree, head.tree)));
    const merge = (message: string, by: string) => this.commit(message, by, this.tip, [head.mark], landed);
    switch (spec.landing) {
      case 'merge':
        this.tip = merge(
          `Merge pull request #${spec.number} from ${slug(author)}/pr-${spec.number}\n\n${spec.title}`,
          'GitHub',
        );
        break;
      case 'merge-titled':
        this.tip = merge(`${spec.title} (#${spec.number})`, author);
        break;
      case 'hand-merge':
        this.tip = merge(`Merge branch 'feature-${spec.number}'`, author);
        break;
      case 'squash': {
        // GitHub's default squash message lists the squashed commits.
        const body = spec.body ?? spec.commits.map((c) => `* ${c.message}`).join('\n\n');
        this.tip = this.commit(
          `${spec.title} (#${spec.number})${body ? `\n\n${body}` : ''}`,
          author,
          this.tip,
          [],
          landed,
        );
        break;
      }
      case 'rebase':
        for (const original of this.commits.slice(-replayed)) {
          const tree = apply(this.tip.tree, Object.fromEntries(original.changes));
          this.tip = this.commit(original.message, 'GitHub', this.tip, [], tree, {
            author: original.author,
            time: original.time,
          });
        }
        break;
      case 'fast-forward':
        if (fork !== this.tip) throw new Error('a fast-forward needs a branch forked from the tip');
        this.tip = head;
        break;
    }
    this.landings.set(spec.number, this.tip.mark);
    this.history.push(this.tip);
    return this;
  }

  /** A PR that never landed: only its refs/pull/N/head exists. */
  openPr(spec: Omit<PrSpec, 'landing' | 'pullRef'>): this {
    this.branch({ ...spec, landing: 'merge', pullRef: true }, this.tip);
    return this;
  }

  /** Writes the repository at `path` (main checked out) and returns main's SHA. */
  async write(path: string): Promise<string> {
    await mkdir(path, { recursive: true });
    await git(path, ['-c', 'init.defaultBranch=main', 'init', '-q']);
    const marks = await mkdtemp(join(tmpdir(), 'chainsmith-marks-'));
    try {
      // Messages naming landing SHAs need those SHAs first: import up to each such commit, read the marks, go on.
      let done = 0;
      let imported = false;
      while (done < this.commits.length) {
        let end = done + 1;
        while (end < this.commits.length && !NAMES_LANDING_SHA.test(this.commits[end].message)) end += 1;
        const shas = imported ? await readMarks(join(marks, 'marks')) : new Map<number, string>();
        const stream = this.commits
          .slice(done, end)
          .map((c) => render(c, (n) => shas.get(this.landings.get(n) ?? -1) ?? ''))
          .join('');
        const markArgs = [
          `--export-marks=${join(marks, 'marks')}`,
          ...(imported ? [`--import-marks=${join(marks, 'marks')}`] : []),
        ];
        await git(path, ['fast-import', '--quiet', '--force', '--done', ...markArgs], { input: `${stream}done\n` });
        imported = true;
        done = end;
      }
      const refs = [
        `reset refs/heads/main\nfrom :${this.tip.mark}\n\n`,
        ...[...this.refs].map(([ref, mark]) => `reset ${ref}\nfrom :${mark}\n\n`),
      ];
      await git(path, ['fast-import', '--quiet', '--force', '--done', `--import-marks=${join(marks, 'marks')}`], {
        input: `${refs.join('')}done\n`,
      });
    } finally {
      await rm(marks, { recursive: true, force: true });
    }
    await git(path, ['update-ref', '-d', 'refs/builder/scratch']);
    await git(path, ['checkout', '-q', '-f', 'main']);
    return (await git(path, ['rev-parse', 'HEAD'])).trim();
  }

  /** Sets the clock so that the `commits`-th commit from now is dated `iso`; history only moves forward. */
  private landAt(iso: string, commits: number): void {
    const start = Date.parse(iso) / 1000 - 60 * commits;
    if (!(start >= this.clock)) throw new Error(`a PR merged at ${iso} would date commits before earlier ones`);
    this.clock = start;
  }

  private branch(spec: PrSpec, fork: Tip): Tip {
    let head = fork;
    for (const commit of spec.commits) {
      head = this.commit(
        commit.message,
        commit.author ?? spec.author ?? this.defaultAuthor,
        head,
        [],
        apply(head.tree, commit.files),
      );
    }
    if (spec.pullRef) this.refs.set(`refs/pull/${spec.number}/head`, head.mark);
    return head;
  }

  private commit(
    message: string,
    author: string,
    parent: Tip | undefined,
    merges: number[],
    tree: Tree,
    authored?: PendingCommit['authored'],
  ): Tip {
    this.clock += 60;
    const mark = this.commits.length + 1;
    this.commits.push({
      mark,
      message,
      author,
      time: this.clock,
      from: parent?.mark,
      merges,
      changes: difference(parent?.tree ?? new Map(), tree),
      authored,
    });
    return { mark, tree };
  }
}

function render(commit: PendingCommit, landingSha: (pr: number) => string): string {
  const who = (name: string, time: number) =>
    `${name} <${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.test> ${time} +0000`;
  const author = commit.authored ? who(commit.authored.author, commit.authored.time) : who(commit.author, commit.time);
  const message = commit.message.replace(LANDING_SHA, (_, n: string) => landingSha(Number(n)));
  const lines = [
    `commit refs/builder/scratch\nmark :${commit.mark}\nauthor ${author}\ncommitter ${who(commit.author, commit.time)}\n${data(message)}`,
  ];
  if (commit.from !== undefined) lines.push(`from :${commit.from}\n`);
  for (const merge of commit.merges) lines.push(`merge :${merge}\n`);
  for (const [path, content] of commit.changes)
    lines.push(content === null ? `D ${path}\n` : `M 100644 inline ${path}\n${data(content)}`);
  return lines.join('') + '\n';
}

async function readMarks(file: string): Promise<Map<number, string>> {
  const marks = new Map<number, string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const [mark, sha] = line.split(' ');
    if (sha) marks.set(Number(mark.slice(1)), sha);
  }
  return marks;
}

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function apply(tree: Tree, changes: FileChanges): Map<string, string> {
  const result = new Map(tree);
  for (const [path, content] of Object.entries(changes)) {
    if (content === null) result.delete(path);
    else result.set(path, content);
  }
  return result;
}

function difference(before: Tree, after: Tree): Map<string, string | null> {
  const changes = new Map<string, string | null>();
  for (const [path, content] of after) if (before.get(path) !== content) changes.set(path, content);
  for (const path of before.keys()) if (!after.has(path)) changes.set(path, null);
  return changes;
}
