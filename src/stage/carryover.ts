import type { Carry, Chain } from '../schemas';
import { checkoutLines } from '../container/checkout';
import { REPO_DIR } from '../container/sandbox';

/** Where the harness drops patches inside a sandbox before the setup script reads them. */
export const CARRY_PATCH = '/work/.chainsmith/carry.patch';
export const PROGRESS_PATCH = '/work/.chainsmith/progress.patch';
/** Written by prepareScript: what a prepared container's setup reads instead of working it out. */
const PREPARED = '/work/.chainsmith/prepared.sh';
const SCRATCH = `GIT_INDEX_FILE=${REPO_DIR}/.git/chainsmith-carry.index`;
const CARRY_MESSAGE = 'carry: agent work from earlier stages';
/** Tag inside the sandbox clone: the stage's starting state S_init(t), after the carry. */
export const CARRY_TAG = 'chainsmith/carry';

/**
 * The shell script that builds stage t's starting state S_init(t) = B_t ⊕ Δτ(t−1) (DESIGN.md, "Carryover").
 *
 * The carried patch D(t−1) is the agent's tree against the gold tree after stage t−1 (the merge M(t−1)),
 * so it already says "take out these gold lines, put in the agent's": reversing earlier gold and applying
 * the agent's work are one three-way merge. The script checks out B_t, rebuilds the agent's tree X on
 * top of M(t−1) in a scratch index (D was made against exactly that tree, so it applies cleanly; no
 * file of M(t−1) is written out), then cherry-picks X onto B_t, with M(t−1) as merge base. Where B_t does not contain M(t−1), the base is their merge-base, so the agent's
 * whole work since then comes along.
 *
 * Conflict policy ('conflict-markers'): in text files both sides are kept between conflict markers; a
 * file git cannot mark up (binary) takes the agent's side. The files are committed and recorded
 * (CARRY_CONFLICT) and the agent is told to resolve them. The agent's work is never dropped.
 */
export function carryScript(
  chain: Chain,
  stage: number,
  opts: { carry: boolean; progress: boolean; prepared?: boolean },
): string {
  const base = chain.prs[stage].baseSha;
  const lines = ['set -euo pipefail'];
  if (opts.carry && stage > 0) {
    const gold = chain.prs[stage - 1].mergeSha;
    lines.push(
      // A prepared container (prepareScript) holds the base, the merge's tree in the scratch index and their merge base.
      ...(opts.prepared ? [`cd ${REPO_DIR}`, `. ${PREPARED}`] : prepareLines(chain, stage)),
      `if ! ${SCRATCH} git apply --allow-empty --cached --binary ${CARRY_PATCH}; then echo "the carried patch does not apply to the merge of PR #${chain.prs[stage - 1].number}" >&2; exit 4; fi`,
      `if [ "$since" = ${gold} ]; then echo GOLD_IN_BASE; fi`,
      `agent_work=$(git commit-tree "$(${SCRATCH} git write-tree)" -p "$since" -m '${CARRY_MESSAGE}')`,
      // A clean pick commits the carry itself (one git process fewer than --no-commit and a commit); an
      // empty carry, or one the base holds already, still makes the carry commit.
      'if ! git cherry-pick --allow-empty --keep-redundant-commits "$agent_work" >/dev/null 2>&1; then',
      '  conflicted=$(git diff --name-only --diff-filter=U)',
      '  while IFS= read -r f; do',
      '    echo "CARRY_CONFLICT $f"',
      // No markers to keep both sides in (a binary file): the agent's version stays.
      '    if ! grep -q "^<<<<<<< " -- "$f" 2>/dev/null; then git checkout --theirs -- "$f" 2>/dev/null || true; fi',
      '  done <<< "$conflicted"',
      '  git add -A',
      `  git commit -q --allow-empty -m '${CARRY_MESSAGE}'`,
      'fi',
    );
  } else {
    lines.push(...(opts.prepared ? [`cd ${REPO_DIR}`] : checkoutLines(base)));
  }
  lines.push(`git tag -f ${CARRY_TAG} >/dev/null`);
  if (opts.progress) lines.push(`git apply --allow-empty --binary ${PROGRESS_PATCH}`);
  return lines.join('\n');
}

/**
 * Stage t's repository as far as it goes before the carried patch is known: its base checked out, the
 * previous stage's merge M(t−1) read into the scratch index, their merge base in `$since`.
 */
function prepareLines(chain: Chain, stage: number): string[] {
  const base = chain.prs[stage].baseSha;
  if (stage === 0) return checkoutLines(base);
  const gold = chain.prs[stage - 1].mergeSha;
  return [
    ...checkoutLines(base),
    `if ! git cat-file -e '${gold}^{commit}' 2>/dev/null; then echo "commit ${gold} does not exist in the repository" >&2; exit 3; fi`,
    `${SCRATCH} git read-tree ${gold}`,
    // The merge is in the base exactly when it is their merge base.
    `since=$(git merge-base ${base} ${gold})`,
  ];
}

/** The script that prepares a container for stage t ahead of its open (pool.ts): the part of carryScript that needs no carried patch. */
export function prepareScript(chain: Chain, stage: number): string {
  const since = stage > 0 ? [`echo "since=$since" > ${PREPARED}`] : [];
  // Files checked out in the second the index is written are "racily clean": git re-reads them at the
  // next refresh, which made the open's cherry-pick 20-27 ms instead of 5-7 on cJSON. A refresh once
  // that second has passed settles them here, in the background, off the open's clock.
  const settle = ['sleep 1.1', 'git update-index -q --refresh >/dev/null || true'];
  return ['set -euo pipefail', ...prepareLines(chain, stage), ...since, ...settle].join('\n');
}

export function parseCarry(output: string, chain: Chain, stage: number, carried: boolean): Carry {
  const conflicts = [...output.matchAll(/^CARRY_CONFLICT (.+)$/gm)].map((m) => m[1]);
  return {
    fromStages: carried ? chain.prs.slice(0, stage).map((pr) => pr.number) : [],
    goldInBase: /^GOLD_IN_BASE$/m.test(output),
    conflicts,
    ...(conflicts.length ? { policy: 'conflict-markers' as const } : {}),
  };
}
