import type { FakeComment, FakeGitHub, FakeRepo } from '../support/fake-github';
import { serverError } from '../support/fake-github';
import { seededRandom } from '../support/seeded-random';

/** What `busyPulls` added, for the bench to say what it measured. */
export interface BusyMix {
  prs: number;
  commentsPastOnePage: number;
  reviewsPastOnePage: number;
  reviewCommentsPastOnePage: number;
  filesPastOnePage: number;
  hundredsOfFiles: number[];
}

/**
 * Gives a fake repository's PRs the long tail real projects have, drawn with a seeded generator:
 * discussions (a few PRs with more comments than one page, more reviews than one page, reviews with
 * more comments than one page) and PRs that touch a hundred files or several hundred (vendored code,
 * mass renames), on top of the files their history really changed.
 */
export function busyPulls(repo: FakeRepo, seed = 7): BusyMix {
  const random = seededRandom(seed);
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const said = (n: number, what: string): FakeComment[] =>
    [...Array(n).keys()].map((i) => ({
      user: `user${i % 17}`,
      body: `${what} ${i + 1}: looks right, but see the edge case above.`,
    }));
  const mix: BusyMix = {
    prs: 0,
    commentsPastOnePage: 0,
    reviewsPastOnePage: 0,
    reviewCommentsPastOnePage: 0,
    filesPastOnePage: 0,
    hundredsOfFiles: [],
  };
  for (const pull of repo.pulls.filter((p) => p.mergedAt)) {
    mix.prs += 1;
    const c = random();
    pull.comments = said(c < 0.02 ? between(60, 180) : c < 0.1 ? between(6, 49) : between(0, 5), 'Comment');
    const r = random();
    const reviews = r < 0.02 ? between(25, 60) : r < 0.15 ? between(4, 19) : between(0, 3);
    pull.reviews = [...Array(reviews).keys()].map((i) => ({
      user: `reviewer${i % 5}`,
      body: i % 2 ? 'Approved with nits.' : '',
      comments: said(random() < 0.05 ? between(11, 30) : between(0, 3), 'Inline'),
    }));
    const f = random();
    const extra = f < 0.01 ? between(300, 900) : f < 0.03 ? between(120, 250) : 0;
    for (let i = 0; i < extra; i++)
      pull.files.push({
        path: `vendor/pkg${Math.floor(i / 40)}/file${i}.go`,
        additions: between(1, 400),
        deletions: 0,
        status: 'added',
      });
    if (pull.comments.length > 50) mix.commentsPastOnePage += 1;
    if (reviews > 20) mix.reviewsPastOnePage += 1;
    if (pull.reviews.some((review) => (review.comments?.length ?? 0) > 10)) mix.reviewCommentsPastOnePage += 1;
    if (pull.files.length > 100) mix.filesPastOnePage += 1;
    if (pull.files.length >= 300) mix.hundredsOfFiles.push(pull.number);
  }
  return mix;
}

/**
 * GitHub answers 502 when a GraphQL query runs too long: here, any query for details of more than
 * `maxBatch` PRs that includes one of the heavy PRs, every time.
 */
export function timeOutHeavyBatches(fake: FakeGitHub, heavy: number[], maxBatch = 8): void {
  fake.fail(
    (r) => {
      if (!r.graphql?.startsWith('query PullDetails')) return false;
      const asked = [...r.graphql.matchAll(/pullRequest\(number: (\d+)\)/g)].map((m) => Number(m[1]));
      return asked.length > maxBatch && asked.some((n) => heavy.includes(n));
    },
    serverError(502),
    Number.POSITIVE_INFINITY,
  );
}
