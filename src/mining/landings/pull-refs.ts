import { git } from '../../git';

const PULL_HEAD = /^refs\/pull\/(\d+)\/head$/;

/**
 * The PR heads a clone fetched (`git fetch origin '+refs/pull/*\/head:refs/pull/*\/head'`), by
 * number. Where they exist they say which numbers are PRs at all, merged or not.
 */
export async function pullHeads(repoPath: string): Promise<Map<number, string>> {
  const output = await git(repoPath, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/pull/']);
  const heads = new Map<number, string>();
  for (const line of output.split('\n')) {
    const [sha, ref] = line.split(' ');
    const match = PULL_HEAD.exec(ref ?? '');
    if (match) heads.set(Number(match[1]), sha);
  }
  return heads;
}
