import type { Chain, PullRequest } from '../../src/schemas';

const sha = (n: number) => String(n).repeat(40).slice(0, 40);

function pr(number: number, title: string, body: string, path: string, diff: string[]): PullRequest {
  return {
    number,
    title,
    body,
    messages: [title],
    author: 'dev',
    mergedAt: '2024-01-01T00:00:00Z',
    landing: 'squash',
    baseSha: sha(number),
    mergeSha: sha(number + 1),
    files: [{ path, kind: 'code', status: 'modified', additions: 2, deletions: 1, binary: false }],
    patch: [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, '@@ -1,3 +1,4 @@', ...diff].join('\n'),
  };
}

/** A two-stage chain built by hand, for code that only reads PR text and patches. */
export function sampleChain(): Chain {
  return {
    id: 'example/cache#10-12',
    repo: { name: 'example/cache', path: '/nonexistent' },
    edges: [{ from: 12, to: 10, kind: 'follow-up', evidence: 'Follow-up to #10', confidence: 0.9 }],
    prs: [
      pr(10, 'Expire cache entries after a TTL', 'Stale entries were served forever.', 'pkg/cache.py', [
        '-def lookup(key):',
        '+def lookup(key, ttl=None):',
        '+    if expired(entry, ttl): return refreshFromDisk(entry)',
      ]),
      pr(
        12,
        'Follow-up to #10: count cache misses',
        'Operators want to see how often the cache misses.',
        'pkg/stats.py',
        ['+MISS_COUNTER = Counter("cache_misses_total")', '+def record_miss(): MISS_COUNTER.inc()'],
      ),
    ],
  };
}
