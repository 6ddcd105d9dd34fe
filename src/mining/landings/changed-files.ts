import { availableParallelism } from 'node:os';
import type { ChangedFile } from '../../schemas';
import { fileKind } from '../file-kind';
import { git } from '../../git';

const STATUS: Record<string, ChangedFile['status']> = {
  A: 'added',
  C: 'added',
  D: 'deleted',
  M: 'modified',
  T: 'modified',
  R: 'renamed',
};

const SHA = /^[0-9a-f]{40}$/;

/**
 * Reads `git diff-tree -z -r --raw --numstat` output:
 * per commit a header (its SHA), then one raw entry per file (status, then one path or two for
 * renames and copies), then one numstat entry per file in the same order. The second path of a
 * rename is the file as it is after. `git log` puts a newline before a commit's first entry.
 */
function parseDiffTree(output: string): Map<string, ChangedFile[]> {
  const tokens = output.split('\0').map((token) => (token.startsWith('\n') ? token.slice(1) : token));
  const byCommit = new Map<string, ChangedFile[]>();
  let i = 0;
  while (i < tokens.length && tokens[i] !== '') {
    const header = tokens[i++];
    if (!SHA.test(header)) throw new Error(`unexpected diff-tree output near "${header.slice(0, 60)}"`);
    const statuses: { path: string; status: string }[] = [];
    while (tokens[i]?.startsWith(':')) {
      const status = tokens[i].slice(tokens[i].lastIndexOf(' ') + 1);
      const twoPaths = status.startsWith('R') || status.startsWith('C');
      statuses.push({ status, path: tokens[i + (twoPaths ? 2 : 1)] });
      i += twoPaths ? 3 : 2;
    }
    const files: ChangedFile[] = [];
    for (const { status, path: rawPath } of statuses) {
      const [added, deleted, inlinePath] = tokens[i].split('\t');
      // A rename's numstat names no path inline; its two paths follow.
      i += inlinePath === '' ? 3 : 1;
      const binary = added === '-';
      files.push({
        path: rawPath,
        kind: fileKind(rawPath),
        status: STATUS[status[0]] ?? 'modified',
        additions: binary ? 0 : Number(added),
        deletions: binary ? 0 : Number(deleted),
        binary,
      });
    }
    byCommit.set(header, files);
  }
  return byCommit;
}

/** Below this a second process costs more to start than it saves. */
const MIN_CHANGES_A_PROCESS = 50;

const DIFF_TREE = [
  'diff-tree',
  '--stdin',
  '--always',
  '-z',
  '-r',
  '--raw',
  '--numstat',
  '-M',
  '--no-ext-diff',
  '--no-abbrev',
];

/**
 * The files each change base..merge touched, for many changes in a few git processes (one process per
 * PR would cap mining at a few hundred PRs a second). Keys are the merge SHAs. Counting lines means
 * diffing blobs, most of a mine's reading time and single-threaded in git, so the changes are dealt
 * round-robin (neighbouring PRs are alike in size) to one process per core.
 */
export async function changedFilesOf(
  repoPath: string,
  changes: readonly { base: string; merge: string }[],
): Promise<Map<string, ChangedFile[]>> {
  const processes = Math.max(1, Math.min(availableParallelism(), Math.ceil(changes.length / MIN_CHANGES_A_PROCESS)));
  const shares = [...Array(processes).keys()].map((p) => changes.filter((_, index) => index % processes === p));
  // "<commit> <parent>" compares the commit with the given parent: exactly base..merge.
  const outputs = await Promise.all(
    shares
      .filter((share) => share.length > 0)
      .map((share) =>
        git(repoPath, DIFF_TREE, { input: share.map(({ base, merge }) => `${merge} ${base}\n`).join('') }),
      ),
  );
  return new Map(outputs.flatMap((output) => [...parseDiffTree(output)]));
}
