// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { addedIdentifiers } from '../../src/queries/code-words';
import { intentOnly } from '../../src/queries/intent-text';

const patch = [
  'diff --git a/pkg/cache.py b/pkg/cache.py',
  '--- a/pkg/cache.py',
  '+++ b/pkg/cache.py',
  '@@ -1,2 +1,4 @@',
  ' import time',
  '-def get(key):',
  '+def lookup_entry(key, ttl=None):',
  '+    if expired(key): return refreshFromDisk(key)',
  '+    # the cache is warm here',
].join('\n');

test('names the added lines define, call or pass as keywords are collected; keywords and prose are not', () => {
  const names = addedIdentifiers(patch);
  expect([...names].sort()).toEqual(['expired', 'lookup_entry', 'refreshFromDisk', 'ttl'].sort());
  expect(names.has('get')).toBe(false); // a removed line
  expect(names.has('cache')).toBe(false); // only in a comment
});

test('code, references and added names are withheld; the rest of the sentence stays', () => {
  const context = {
    identifiers: addedIdentifiers(patch),
    stageOf: new Map([
      [3, 1],
      [7, 2],
    ]),
    stage: 2,
  };
  const text = intentOnly(
    'Follow-up to #3: entries now expire (see `ttl`). Calling lookup_entry(k) used pkg.cache and fixes #99 (#7).',
    context,
  );
  expect(text).toBe(
    'Follow-up to an earlier stage: entries now expire (see …). Calling … used … and fixes a related change.',
  );
});

test('fenced blocks go entirely', () => {
  const context = { identifiers: new Set<string>(), stageOf: new Map(), stage: 1 };
  expect(intentOnly('Speed up start-up.\n```\nload(fast=True)\n```\nDone', context)).toBe('Speed up start-up. … Done');
});
