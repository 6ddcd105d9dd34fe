import type { PullRequest } from '../../src/schemas';

/** A schema-valid PR with only the fields a test cares about set. */
export function makePr(number: number, fields: Partial<PullRequest> = {}): PullRequest {
  return {
    number,
    title: `PR ${number}`,
    body: '',
    messages: [],
    author: 'someone',
    mergedAt: new Date(Date.UTC(2024, 0, number)).toISOString(),
    landing: 'squash',
    baseSha: 'a'.repeat(40),
    mergeSha: 'b'.repeat(40),
    files: [],
    patch: '',
    ...fields,
  };
}
