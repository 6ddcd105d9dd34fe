// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { checkLeak, leakReport } from '../../src/queries/leak-check';
import { patchSecrets } from '../../src/queries/patch-secrets';

const PATCH = [
  'diff --git a/pkg/cache.py b/pkg/cache.py',
  '--- a/pkg/cache.py',
  '+++ b/pkg/cache.py',
  '@@ -1,6 +1,9 @@',
  ' import time',
  '-def lookup(key):',
  '+def lookup(key, ttl=None):',
  '     entry = _entries.get(key)',
  '-    return entry',
  '+    if entry and entry.stamp + ttl < time.time():',
  '+        raise StaleEntry("cache entry expired before use")',
  '+    return refreshFromDisk(entry)',
  '+    # keep the old behaviour when no ttl is given',
  'diff --git a/tests/test_cache.py b/tests/test_cache.py',
  '--- a/tests/test_cache.py',
  '+++ b/tests/test_cache.py',
  '@@ -1,1 +1,3 @@',
  '+def test_expired_entry_raises():',
  '+    assert_raises(lookup, "k", ttl=0)',
].join('\n');

const secrets = patchSecrets(PATCH);

test('a patch yields the names it introduces, its literals, its files and its code lines', () => {
  expect([...secrets.identifiers].sort()).toEqual(
    ['StaleEntry', 'assert_raises', 'entry.stamp', 'refreshFromDisk', 'test_expired_entry_raises', 'time.time'].sort(),
  );
  // "lookup" is defined on both sides of the diff: it exists already, so naming it says where, not what.
  expect([...secrets.names].sort()).toEqual(['test_expired_entry_raises', 'ttl']);
  expect([...secrets.literals]).toEqual(['cache entry expired before use']);
  expect([...secrets.paths].sort()).toEqual(['cache.py', 'pkg/cache.py', 'test_cache.py', 'tests/test_cache.py']);
});

test('a query that states intent and place without the edit scores 0', () => {
  const text =
    "Cached lookups can return entries that are far too old. In the caching layer, let callers bound how old an entry may be and refuse stale ones; keep today's behaviour when no bound is given.";
  expect(checkLeak(text, secrets)).toEqual({ score: 0, findings: [] });
});

test('each kind of give-away is found, and findings add up', () => {
  const cases: [string, string, string][] = [
    ['fragment', 'Check `entry.stamp + ttl < time.time()` first.', 'entry . stamp + ttl < time . time ( )'],
    ['literal', 'Raise an error saying "Cache entry expired before use".', 'cache entry expired before use'],
    ['identifier', 'Call refreshFromDisk for entries that are still fresh.', 'refreshFromDisk'],
    ['name', 'Add a TTL parameter.', 'ttl'],
    ['path', 'The change belongs in pkg/cache.py.', 'pkg/cache.py'],
  ];
  for (const [kind, text, found] of cases) {
    const result = checkLeak(text, secrets);
    expect(result.findings.map((f) => [f.kind, f.text])).toContainEqual([kind, found]);
  }
  const one = checkLeak('Add a TTL parameter.', secrets).score;
  const two = checkLeak('Add a TTL parameter and use refreshFromDisk.', secrets).score;
  expect(two).toBeGreaterThan(one);
  expect(two).toBeLessThanOrEqual(1);
});

test('a file path alone stays within the default limit; a name the patch defines does not', () => {
  expect(leakReport('Work in pkg/cache.py: stale entries must not be served.', secrets)).toMatchObject({
    passed: true,
    attempts: 1,
  });
  expect(leakReport('Give the lookup a ttl.', secrets)).toMatchObject({ passed: false });
  // The longer path is one finding, not two ("pkg/cache.py" and "cache.py").
  expect(checkLeak('See pkg/cache.py.', secrets).findings).toHaveLength(1);
});

test('prose words that only resemble code are not findings', () => {
  // "time" and "entry" occur in the patch but as existing names and plain words, not as introduced code.
  expect(
    checkLeak('Each entry records the time it was stored; expired entries raise an error.', secrets).findings,
  ).toEqual([]);
});
