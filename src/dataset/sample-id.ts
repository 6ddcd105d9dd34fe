import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal content always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/**
 * A sample's id: a hash of what it teaches (policy, model, repository, PRs and the conversation), so
 * the same conversation exported twice, from any source, gets the same id and is kept once.
 */
export function sampleId(content: {
  policy: string;
  model?: string;
  repo: string;
  prs: number[];
  messages: unknown[];
}): string {
  const key = canonicalJson([content.policy, content.model ?? '', content.repo, content.prs, content.messages]);
  return createHash('sha256').update(key).digest('hex').slice(0, 24);
}
