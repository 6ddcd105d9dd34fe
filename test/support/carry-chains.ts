import { git } from '../../src/git';
import { readLocalPullRequests } from '../../src/mining/landings/local-git';
import { withLocalPatches } from '../../src/mining/landings/local-patches';
import type { Chain } from '../../src/schemas';

export interface CarryChain {
  chain: Chain;
  /** The agent's work after stage 1, as a rollout carries it: its tree against the gold tree after stage 1. */
  carry: string;
}

export const AGENT_NOTES = 'AGENT_NOTES.md';

/**
 * Two-stage chains of consecutive merged PRs from a real clone's most recent history (PRs by people
 * that change code), each with a carry into stage 2 made of real work the way an agent's often
 * differs from the gold one: the agent kept the PR's tests but left its code as it was before the PR
 * (so the carry takes the gold code out again, a three-way merge onto stage 2's base), and added a
 * file of its own.
 */
export async function carryChains(repoPath: string, repoName: string, count: number): Promise<CarryChain[]> {
  const mined = await readLocalPullRequests(repoPath);
  const byPeople = mined.prs
    .filter(
      (pr) =>
        !pr.authorIsBot &&
        !/\[bot\]$|^dependabot|^renovate/i.test(pr.author) &&
        pr.files.some((f) => f.kind === 'code'),
    )
    .sort((a, b) => a.mergedAt.localeCompare(b.mergedAt));
  const prs = await withLocalPatches(repoPath, byPeople.slice(-(count + 1)));
  const chains: CarryChain[] = [];
  for (let i = 0; i + 1 < prs.length; i++) {
    const [first, second] = [prs[i], prs[i + 1]];
    const code = first.files.filter((f) => f.kind === 'code' && f.status !== 'added').map((f) => f.path);
    const undone = code.length
      ? await git(repoPath, ['diff', '--binary', first.mergeSha, first.baseSha, '--', ...code])
      : '';
    const notes = `diff --git a/${AGENT_NOTES} b/${AGENT_NOTES}\nnew file mode 100644\n--- /dev/null\n+++ b/${AGENT_NOTES}\n@@ -0,0 +1 @@\n+Stage 1 (PR #${first.number}): tests kept, code to redo.\n`;
    chains.push({
      chain: {
        id: `${repoName}#${first.number}-${second.number}`,
        repo: { name: repoName, path: repoPath },
        prs: [first, second],
        edges: [],
      },
      carry: undone + notes,
    });
  }
  return chains;
}
