import type { Edge, PullRequestRecord } from '../../schemas';
import { splitMessage } from '../landings/commit-log';
import { recognizeLanding } from '../landings/landing';

/** `git revert` and GitHub's revert button both title the revert `Revert "<subject>"`. */
const REVERT_TITLE = /^Revert "(.+)"$/;
/** GitHub's revert button pushes a branch named revert-<N>-<original branch>. */
const REVERT_BRANCH = /^Merge pull request #\d+ from [^\s/]+\/revert-(\d+)-/;
const NUMBERED = /\s+\(#\d+\)$/;

const normalize = (subject: string) => subject.replace(NUMBERED, '').trim().toLowerCase();

/**
 * Reverts that name what they revert by its title or by GitHub's branch name rather than by number
 * or sha. A title must name one earlier PR alone (its title or one of its commits' subjects);
 * a subject shared by several PRs says nothing.
 */
export function revertReferences(prs: readonly PullRequestRecord[], mined: ReadonlySet<number>): Edge[] {
  const bySubject = new Map<string, Set<number>>();
  const mergedAt = new Map(prs.map((pr) => [pr.number, pr.mergedAt]));
  for (const pr of prs) {
    const subjects = [pr.title, ...pr.messages.map((message) => splitMessage(message).subject)];
    for (const subject of subjects) {
      // Another PR's landing that came in with this one (a merge-up) is not this PR's subject.
      const landing = recognizeLanding(subject, 2);
      if ((landing && landing.number !== pr.number) || /^Merge /.test(subject)) continue;
      const key = normalize(subject);
      if (key === '') continue;
      bySubject.set(key, (bySubject.get(key) ?? new Set()).add(pr.number));
    }
  }
  const edges: Edge[] = [];
  for (const pr of prs) {
    const texts: { text: string; field: 'title' | 'message'; index?: number }[] = [
      { text: pr.title, field: 'title' },
      ...pr.messages.map((message, index) => ({
        text: splitMessage(message).subject,
        field: 'message' as const,
        index,
      })),
    ];
    for (const { text, field, index } of texts) {
      const branch = REVERT_BRANCH.exec(text);
      const titled = REVERT_TITLE.exec(text.replace(NUMBERED, ''));
      let target: number | undefined;
      if (branch) target = Number(branch[1]);
      else if (titled) {
        const named = [...(bySubject.get(normalize(titled[1])) ?? [])].filter((n) => n !== pr.number);
        if (named.length === 1) target = named[0];
      }
      const earlier = target !== undefined && (mergedAt.get(target) ?? '') <= pr.mergedAt;
      if (target === undefined || target === pr.number || !mined.has(target) || !earlier) continue;
      edges.push({
        from: pr.number,
        to: target,
        kind: 'reverts',
        evidence: text.slice(0, 200),
        confidence: branch ? 0.9 : 0.85,
        source: { field, ...(index !== undefined ? { index } : {}), start: 0, end: text.length },
      });
    }
  }
  return edges;
}
