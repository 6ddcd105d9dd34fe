import { createHash } from 'node:crypto';
import { fileKind } from '../../src/mining/file-kind';
import type { PullRequestRecord } from '../../src/schemas';

const sha = (seed: string) => createHash('sha1').update(seed).digest('hex');

/**
 * `count` PR records shaped like a large repository's: most PRs say nothing about other PRs; some
 * follow up on, fix or revert a recent one (in the title, the body or a commit), some close an
 * issue, a few cite a long-lived tracking PR (a hub) or another repository, and bots bump
 * dependencies. Deterministic, so figures compare across runs.
 */
export function syntheticRecords(count: number): PullRequestRecord[] {
  const records: PullRequestRecord[] = [];
  for (let i = 0; i < count; i++) {
    const number = 2 * i + 2; // issues take the odd numbers
    const recent = (back: number) => Math.max(2, number - 2 * back);
    const roll = (i * 2654435761) % 100;
    const title =
      roll < 6
        ? `Follow-up to #${recent(1 + (i % 7))}: extend the parser`
        : roll < 10
          ? `Fix regression from #${recent(1 + (i % 30))}`
          : `Improve module ${i % 400}`;
    const body = [
      roll % 4 === 0 ? `Fixes #${number - 1}.` : '',
      roll > 95 ? `See #${1000 + 2 * (i % 5)} for the plan.` : '',
      roll > 90 && roll <= 92 ? `Like upstream/lib#${i % 300}.` : '',
    ].join(' ');
    const messages = [
      `${title} (#${number})`,
      roll >= 10 && roll < 13
        ? `Revert "Improve module"\n\nThis reverts commit ${sha(`merge ${recent(2)}`)}.`
        : `Work on ${i % 400}`,
    ];
    const author = i % 25 === 0 ? 'dependabot[bot]' : `dev-${i % 300}`;
    const paths = [`src/module_${i % 400}.py`, ...(i % 3 === 0 ? [`tests/test_module_${i % 400}.py`] : [])];
    records.push({
      number,
      title,
      body,
      messages,
      author,
      mergedAt: new Date(Date.UTC(2015, 0, 1) + i * 3_600_000).toISOString(),
      landing: 'merge',
      baseSha: sha(`base ${number}`),
      mergeSha: sha(`merge ${number}`),
      commitShas: [sha(`own ${number}`)],
      files: paths.map((path) => ({
        path,
        kind: fileKind(path),
        status: 'modified' as const,
        additions: 12,
        deletions: 4,
        binary: false,
      })),
    });
  }
  return records;
}
