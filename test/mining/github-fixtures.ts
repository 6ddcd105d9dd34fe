import { createHash } from 'node:crypto';
import { logCommits } from '../../src/mining/landings/commit-log';
import { git } from '../../src/git';
import { readLocalPullRequests } from '../../src/mining/landings/local-git';
import type { FakeCommit, FakePull, FakeRepo } from '../support/fake-github';

const login = (author: string) =>
  author.endsWith('[bot]') ? author : author.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const STATUS = { added: 'added', modified: 'modified', deleted: 'removed', renamed: 'renamed' } as const;

/**
 * The repository GitHub would show for a local history: one merged PR per PR the local miner
 * finds, with the same commits, SHAs and files, and compare diffs served from the clone itself.
 */
export async function fakeRepoFromClone(owner: string, name: string, path: string): Promise<FakeRepo> {
  const { prs } = await readLocalPullRequests(path);
  const refs = (await git(path, ['for-each-ref', '--format=%(objectname)'])).split('\n').filter(Boolean);
  const commits = new Map<string, FakeCommit>(
    (await logCommits(path, [...new Set(refs)])).map((c) => [
      c.sha,
      { sha: c.sha, message: c.message, parents: c.parents },
    ]),
  );
  const pulls: FakePull[] = prs.map((pr) => ({
    number: pr.number,
    title: pr.title,
    body: pr.body || null,
    user: login(pr.author),
    state: 'closed',
    createdAt: new Date(Date.parse(pr.mergedAt) - 86_400_000).toISOString(),
    updatedAt: pr.mergedAt,
    mergedAt: pr.mergedAt,
    baseRef: 'main',
    baseSha: pr.baseSha,
    headSha: pr.headSha ?? pr.mergeSha,
    mergeSha: pr.mergeSha,
    files: pr.files.map((f) => ({
      path: f.path,
      additions: f.additions,
      deletions: f.deletions,
      status: STATUS[f.status],
    })),
    commits: (pr.commitShas ?? []).map((sha) => commits.get(sha) as FakeCommit),
  }));
  return { owner, name, defaultBranch: 'main', pulls, commits, gitDir: path };
}

const sha = (seed: string) => createHash('sha1').update(seed).digest('hex');

/**
 * A repository of `count` PRs with made-up SHAs (no git behind it): every third is still open,
 * the rest merged; every tenth says it follows up on the one before.
 */
export function syntheticFakeRepo(count: number, owner = 'acme', name = 'big'): FakeRepo {
  const commits = new Map<string, FakeCommit>();
  const pulls: FakePull[] = [];
  let mainTip = sha('root');
  commits.set(mainTip, { sha: mainTip, message: 'Initial import', parents: [] });
  for (let i = 1; i <= count; i++) {
    const number = i + 1;
    const open = i % 3 === 0;
    const own = {
      sha: sha(`own ${number}`),
      message: i % 10 === 0 ? `Follow-up to #${number - 1}` : `Work on ${number}`,
      parents: [mainTip],
    };
    commits.set(own.sha, own);
    const created = new Date(Date.UTC(2023, 0, 1) + i * 3_600_000).toISOString();
    let mergeSha: string | null = null;
    if (!open) {
      mergeSha = sha(`merge ${number}`);
      commits.set(mergeSha, { sha: mergeSha, message: `Change ${number} (#${number})`, parents: [mainTip] });
      mainTip = mergeSha;
    }
    pulls.push({
      number,
      title: `Change ${number}`,
      body: i % 10 === 0 ? `Follow-up to #${number - 1}` : null,
      user: 'grace-hopper',
      state: open ? 'open' : 'closed',
      createdAt: created,
      updatedAt: created,
      mergedAt: open ? null : created,
      baseRef: 'main',
      baseSha: own.parents[0],
      headSha: own.sha,
      mergeSha,
      files: [{ path: `src/mod_${number % 50}.py`, additions: 3, deletions: 1, status: 'modified' }],
      commits: [own],
    });
  }
  return { owner, name, defaultBranch: 'main', pulls, commits };
}
