import type { PullRequestRecord } from '../../schemas';

/** Accounts that open PRs by the thousand (dependency bumps, formatting); their PRs teach no agent. */
const BOT_NAMES =
  /(\[bot\]|-bot|^dependabot|^renovate|^greenkeeper|^snyk-bot|^github-actions|^pre-commit-ci|^mergify|^codecov|^allcontributors)$/i;

export interface PrFilterOptions {
  keepBots?: boolean;
  /** Keep PRs that change only docs and config (no code, no tests). */
  keepNoCode?: boolean;
  /** Lines added plus deleted above which a PR is too large to be one stage. */
  maxChangedLines?: number;
}

export const DEFAULT_MAX_CHANGED_LINES = 2000;

type DropReason = 'bot' | 'no-code' | 'oversized';

export function isBot(pr: Pick<PullRequestRecord, 'author' | 'authorIsBot'>): boolean {
  return pr.authorIsBot === true || BOT_NAMES.test(pr.author.trim());
}

/** Why a PR cannot be a chain stage, or undefined when it can. Tests count as code. */
export function dropReason(pr: PullRequestRecord, opts: PrFilterOptions = {}): DropReason | undefined {
  if (!opts.keepBots && isBot(pr)) return 'bot';
  if (!opts.keepNoCode && !pr.files.some((file) => file.kind !== 'other')) return 'no-code';
  const changed = pr.files.reduce((sum, file) => sum + file.additions + file.deletions, 0);
  if (changed > (opts.maxChangedLines ?? DEFAULT_MAX_CHANGED_LINES)) return 'oversized';
  return undefined;
}

export function filterPullRequests<P extends PullRequestRecord>(
  prs: readonly P[],
  opts: PrFilterOptions = {},
): { kept: P[]; dropped: Record<DropReason, number> } {
  const dropped: Record<DropReason, number> = { bot: 0, 'no-code': 0, oversized: 0 };
  const kept = prs.filter((pr) => {
    const reason = dropReason(pr, opts);
    if (reason) dropped[reason] += 1;
    return reason === undefined;
  });
  return { kept, dropped };
}
