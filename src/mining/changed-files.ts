import type { ChangedFile } from '../schemas';
import { fileKind } from './file-kind';
import { git } from './git';

const STATUS: Record<string, ChangedFile['status']> = {
  A: 'added',
  C: 'added',
  D: 'deleted',
  M: 'modified',
  T: 'modified',
  R: 'renamed',
};

interface Entry {
  path: string;
  field: string;
}

/**
 * Splits `git diff -z` output of --numstat or --name-status into (final path, leading field).
 * Renames and copies carry two paths; the second one is the file as it is after the change.
 */
function parseZ(output: string, numstat: boolean): Entry[] {
  const parts = output.split('\0');
  const entries: Entry[] = [];
  for (let i = 0; i < parts.length && parts[i] !== ''; ) {
    if (numstat) {
      const [added, deleted, ...rest] = parts[i].split('\t');
      const path = rest.join('\t'); // a path may itself contain tabs
      const field = `${added}\t${deleted}`;
      if (path === '') {
        entries.push({ field, path: parts[i + 2] });
        i += 3;
      } else {
        entries.push({ field, path });
        i += 1;
      }
    } else {
      const field = parts[i];
      const twoPaths = field.startsWith('R') || field.startsWith('C');
      entries.push({ field, path: parts[i + (twoPaths ? 2 : 1)] });
      i += twoPaths ? 3 : 2;
    }
  }
  return entries;
}

/** The files a change base..merge touched, with line counts, status and kind. */
export async function changedFiles(repoPath: string, base: string, merge: string): Promise<ChangedFile[]> {
  const range = ['--end-of-options', base, merge, '--'];
  const [numstat, nameStatus] = await Promise.all([
    git(repoPath, ['diff', '-z', '-M', '--no-ext-diff', '--numstat', ...range]),
    git(repoPath, ['diff', '-z', '-M', '--no-ext-diff', '--name-status', ...range]),
  ]);
  const statuses = new Map(parseZ(nameStatus, false).map((entry) => [entry.path, entry.field]));
  return parseZ(numstat, true).map(({ path, field }) => {
    const [added, deleted] = field.split('\t');
    const binary = added === '-';
    return {
      path,
      kind: fileKind(path),
      status: STATUS[(statuses.get(path) ?? 'M')[0]] ?? 'modified',
      additions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(deleted),
      binary,
    };
  });
}
