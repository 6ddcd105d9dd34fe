import type { Carry, Chain } from '../schemas';
import { REPO_DIR } from './docker-sandbox';

/** Where the harness drops patches inside a sandbox before the setup script reads them. */
export const CARRY_PATCH = '/work/.chainsmith/carry.patch';
export const PROGRESS_PATCH = '/work/.chainsmith/progress.patch';
/** Tag inside the sandbox clone: the stage's starting state S_init(t), after the carry. */
export const CARRY_TAG = 'chainsmith/carry';

/**
 * The shell script that builds stage t's starting state S_init(t) = B_t ⊕ Δτ(t−1) (DESIGN.md, "Carryover").
 *
 * The carried patch D(t−1) is the agent's tree against the gold tree after stage t−1 (the merge M(t−1)),
 * so it already says "take out these gold lines, put in the agent's": reversing earlier gold and applying
 * the agent's work are one three-way merge. The script rebuilds the agent's tree X on top of M(t−1)
 * (D was made against exactly that tree, so it applies cleanly), then cherry-picks X onto B_t, with
 * M(t−1) as merge base. Where B_t does not contain M(t−1), the base is their merge-base, so the agent's
 * whole work since then comes along.
 *
 * Conflict policy: both sides are kept as conflict markers, committed and recorded (CARRY_CONFLICT),
 * and the agent is told which files to resolve. The agent's work is never dropped.
 */
export function carryScript(chain: Chain, stage: number, opts: { carry: boolean; progress: boolean }): string {
  const base = chain.prs[stage].baseSha;
  const lines = ['set -euo pipefail', `git clone -q --no-checkout --shared /mirror ${REPO_DIR}`, `cd ${REPO_DIR}`];
  if (opts.carry && stage > 0) {
    const gold = chain.prs[stage - 1].mergeSha;
    lines.push(
      `git checkout -q --detach ${gold}`,
      `git apply --allow-empty --index --binary ${CARRY_PATCH}`,
      `if git merge-base --is-ancestor ${gold} ${base}; then echo GOLD_IN_BASE; fi`,
      `agent_work=$(git commit-tree "$(git write-tree)" -p "$(git merge-base ${base} ${gold})" -m 'agent work through stage ${stage}')`,
      `git checkout -q --force --detach ${base}`,
      'if ! git cherry-pick --no-commit "$agent_work" >/dev/null 2>&1; then',
      '  git diff --name-only --diff-filter=U | sed "s/^/CARRY_CONFLICT /"',
      'fi',
      'git add -A',
      `git commit -q --allow-empty -m 'carry: agent work from earlier stages'`,
    );
  } else {
    lines.push(`git checkout -q --detach ${base}`);
  }
  lines.push(`git tag ${CARRY_TAG}`);
  if (opts.progress) lines.push(`git apply --allow-empty --binary ${PROGRESS_PATCH}`);
  return lines.join('\n');
}

export function parseCarry(output: string, chain: Chain, stage: number, carried: boolean): Carry {
  return {
    fromStages: carried ? chain.prs.slice(0, stage).map((pr) => pr.number) : [],
    goldInBase: /^GOLD_IN_BASE$/m.test(output),
    conflicts: [...output.matchAll(/^CARRY_CONFLICT (.+)$/gm)].map((m) => m[1]),
  };
}
