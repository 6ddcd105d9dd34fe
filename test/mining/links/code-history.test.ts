// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeHistoryEdges } from '../../../src/mining/links/code-history';
import { corroboration, introduced } from '../../../src/mining/links/corroboration';
import { recordsToChains } from '../../../src/mining/pipeline';
import { readLocalPullRequests } from '../../../src/mining/landings/local-git';
import { isSweep } from '../../../src/mining/links/sweeps';
import { makePr } from '../make-pr';
import { lines, ReleaseRepo, rewrite } from '../release-branch';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-blame-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test('blame looks through a reformatting PR to the PR that wrote the lines, and a release PR links nothing', async () => {
  const repo = await new ReleaseRepo(join(root, 'app')).init();
  let parser = lines('parser', 30);
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser });
  // A sweep rewrites every line (here: indentation) without changing what they do.
  parser = parser
    .split('\n')
    .map((line) => (line ? `    ${line}` : line))
    .join('\n');
  await repo.quickPr(2, 'Reformat with black', '', { 'src/parser.py': parser });
  await repo.quickPr(3, 'Add the printer', '', {
    'src/printer.py': lines('printer', 10),
    'src/version.py': '__version__ = "1.0"\n',
  });
  parser = rewrite(parser, 10, 4, '    fixed');
  await repo.quickPr(4, 'Fix the parser crash on empty input', '', { 'src/parser.py': parser });
  await repo.quickPr(5, 'Release version 1.1', '', { 'src/version.py': '__version__ = "1.1"\n' });

  const { prs } = await readLocalPullRequests(repo.path);
  expect(prs.filter(isSweep).map((pr) => pr.number)).toEqual([2, 5]);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(edges.map(({ from, to, kind, confidence }) => `${from}->${to} ${kind} ${confidence}`)).toEqual([
    '4->1 code-history 0.9',
  ]);
  expect(edges[0].evidence).toBe(
    '#4 changes 4 lines that #1 wrote (100% of its 8 changed lines of code); #4 says it fixes; both name parser',
  );
  // Outside the window the same lines are nobody's.
  expect(await codeHistoryEdges(repo.path, prs, prs, { windowDays: 0 })).toEqual([]);
});

test('a version release that lands a fix links to whose lines the fix changes, not to whoever wrote the version string', async () => {
  const repo = await new ReleaseRepo(join(root, 'release-fix')).init();
  const printer = lines('printer', 10);
  await repo.quickPr(1, 'Add the printer', '', { 'src/printer.c': printer });
  await repo.quickPr(2, 'Add the version header', '', { 'src/version.h': '#define VERSION_PATCH 3\n' });
  await repo.quickPr(3, 'Release 1.7.4', '', {
    'src/printer.c': rewrite(printer, 2, 2, 'fixed'),
    'src/version.h': '#define VERSION_PATCH 4\n',
  });
  const { prs } = await readLocalPullRequests(repo.path);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(edges.map(({ from, to, evidence }) => `${from}->${to}: ${evidence}`)).toEqual([
    '3->1: #3 changes 2 lines that #1 wrote (100% of its 4 changed lines of code)',
  ]);
});

test("a title naming what an earlier PR's code brought in corroborates the code history; a name it only used does not", async () => {
  expect(introduced('-    x = load_config()\n+    x = load_config(strict)\n+def native_concat(values):\n')).toEqual(
    new Set(['strict', 'native_concat', 'values']),
  );
  const repo = await new ReleaseRepo(join(root, 'introduced')).init();
  await repo.quickPr(1, 'Add config loading', '', { 'src/native.py': `config = load_config()\n${lines('native', 6)}` });
  // #2 brings in native_concat; load_config it only uses (its old line held it already).
  const native = `def native_concat(values):\nconfig = load_config(strict)\n${lines('typed', 6)}`;
  await repo.quickPr(2, 'Return native types', '', { 'src/native.py': native });
  // Each rewrites one of #2's lines and adds three of its own: 40% of its changed lines are #2's.
  const grow = (text: string, at: number, tag: string) => rewrite(text, at, 1, tag) + lines(tag, 3);
  await repo.quickPr(3, 'Allow a list in native_concat', '', { 'src/native.py': grow(native, 4, 'listed') });
  await repo.quickPr(4, 'Reload with load_config', '', {
    'src/native.py': grow(grow(native, 4, 'listed'), 6, 'reload'),
  });
  const { prs } = await readLocalPullRequests(repo.path);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(
    edges
      .filter((edge) => edge.from > 2)
      .map(({ from, to, confidence, evidence }) => `${from}->${to} ${confidence}: ${evidence}`),
  ).toEqual([
    '3->2 0.65: #3 changes 1 line that #2 wrote (40% of its 5 changed lines of code); both name native_concat',
    '4->2 0.5: #4 changes 1 line that #2 wrote (40% of its 5 changed lines of code)',
  ]);
});

test('a fix that says an earlier change broke something weighs more than a plain fix', async () => {
  const repo = await new ReleaseRepo(join(root, 'regression')).init();
  const [parser, lexer] = [lines('parser', 20), lines('lexer', 20)];
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser });
  await repo.quickPr(2, 'Add the lexer', '', { 'src/lexer.py': lexer });
  // Each rewrites one line and adds four: a third of its changed lines are the earlier PR's.
  await repo.quickPr(3, 'Fix a crash on empty input', '', {
    'src/parser.py': rewrite(parser, 5, 1, 'empty') + lines('empty', 4),
  });
  await repo.quickPr(4, 'Fix tab handling', 'A bug introduced in 2.10.', {
    'src/lexer.py': rewrite(lexer, 5, 1, 'tabs') + lines('tabs', 4),
  });
  const { prs } = await readLocalPullRequests(repo.path);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(edges.map(({ from, to, confidence, evidence }) => `${from}->${to} ${confidence}: ${evidence}`)).toEqual([
    '3->1 0.57: #3 changes 1 line that #1 wrote (33% of its 6 changed lines of code); #3 says it fixes',
    '4->2 0.67: #4 changes 1 line that #2 wrote (33% of its 6 changed lines of code); #4 says an earlier change broke it',
  ]);
});

test("a name both PRs use only to tag their commits' component corroborates nothing; a name one of them is about does", () => {
  const simplify = makePr(1, {
    title: 'Simplify print functions',
    messages: ['print_array: rename variables', 'tests: print_string: test NULL'],
  });
  const booleans = makePr(2, {
    title: 'Return booleans',
    messages: ['print_array: return boolean', 'tests: print_string: expect false'],
  });
  const speedUp = makePr(3, { title: 'Speed up print_array', messages: ['print_array: fewer copies'] });
  expect(corroboration(booleans, simplify, [simplify, booleans])).toEqual({ bonus: 0, why: '' });
  expect(corroboration(speedUp, simplify, [simplify, speedUp])).toEqual({
    bonus: 0.15,
    why: '; both name print_array',
    shared: 'print_array',
  });
});

test('a rare long word both titles say corroborates the code history; a common one does not', () => {
  const fuzz = makePr(1, { title: 'Add the OSS-Fuzz integration' });
  const build = makePr(2, { title: 'Build OSS-Fuzz targets with CXX' });
  const docs = makePr(3, { title: 'Document the integration' });
  const all = [
    fuzz,
    build,
    docs,
    ...Array.from({ length: 120 }, (_, i) => makePr(10 + i, { title: `Tidy integration ${i}` })),
  ];
  expect(corroboration(build, fuzz, all)).toEqual({ bonus: 0.15, why: '; both name oss-fuzz', shared: 'oss-fuzz' });
  expect(corroboration(docs, fuzz, all)).toEqual({ bonus: 0, why: '' });
});

test('a small share of lines stays a weak link, whatever the words', async () => {
  const repo = await new ReleaseRepo(join(root, 'share')).init();
  const cache = lines('cache', 20);
  await repo.quickPr(1, 'Add the cache', '', { 'src/cache.py': cache });
  // #2 rewrites one line of #1 among twenty of its own: share 2/22.
  await repo.quickPr(2, 'Fix the store', '', {
    'src/cache.py': rewrite(cache, 3, 1, 'x'),
    'src/store.py': lines('store', 20),
  });
  const { prs } = await readLocalPullRequests(repo.path);
  const [edge] = await codeHistoryEdges(repo.path, prs, prs);
  expect(edge).toMatchObject({ from: 2, to: 1, kind: 'code-history' });
  expect(edge.confidence).toBeLessThan(0.6);
});

test('a PR that names another and rewrites its lines follows up on it; naming alone is a mention', async () => {
  const repo = await new ReleaseRepo(join(root, 'named')).init();
  const cache = lines('cache', 20);
  await repo.quickPr(1, 'Add the cache', '', { 'src/cache.py': cache });
  await repo.quickPr(2, 'Add the store', '', { 'src/store.py': lines('store', 20) });
  await repo.quickPr(3, 'Make eviction lazy', 'As discussed in #1.', { 'src/cache.py': rewrite(cache, 3, 2, 'lazy') });
  await repo.quickPr(4, 'Store in batches', 'See #2 for context.', { 'src/batch.py': lines('batch', 5) });
  const { prs } = await readLocalPullRequests(repo.path);
  const patches = async (records: typeof prs) => records.map((pr) => ({ ...pr, patch: '' }));
  const { edges } = await recordsToChains({ name: 'app', path: repo.path }, prs, patches, { clone: repo.path });
  expect(edges.map(({ from, to, kind, confidence }) => `${from}->${to} ${kind} ${confidence}`)).toEqual([
    '3->1 follow-up 0.8',
    '4->2 mentions 0.5',
  ]);
  expect(edges[0].evidence).toBe(
    'As discussed in #1. (and #3 changes 2 lines that #1 wrote (100% of its 4 changed lines of code))',
  );
});

test("naming a PR and rewriting its lines links at any age; without the name, lines older than the window (a year by default) are nobody's; --blame-days widens it", async () => {
  const repo = await new ReleaseRepo(join(root, 'named-old')).init();
  const cache = lines('cache', 20);
  const store = lines('store', 20);
  await repo.quickPr(1, 'Add the cache', '', { 'src/cache.py': cache });
  await repo.quickPr(2, 'Add the store', '', { 'src/store.py': store });
  repo.advance(400);
  await repo.quickPr(3, 'Key the cache by loader', 'The key chosen in #1 made every lookup read the file.', {
    'src/cache.py': rewrite(cache, 3, 2, 'keyed'),
  });
  await repo.quickPr(4, 'Store in batches', '', { 'src/store.py': rewrite(store, 3, 2, 'batched') });
  const { prs } = await readLocalPullRequests(repo.path);
  const patches = async (records: typeof prs) => records.map((pr) => ({ ...pr, patch: '' }));
  const mined = async (blameWindowDays?: number) =>
    (
      await recordsToChains({ name: 'app', path: repo.path }, prs, patches, { clone: repo.path, blameWindowDays })
    ).edges.map(({ from, to, kind, confidence }) => `${from}->${to} ${kind} ${confidence}`);
  expect(await mined()).toEqual(['3->1 follow-up 0.8']);
  expect(await mined(365)).toEqual(['3->1 follow-up 0.8']);
  expect(await mined(1000)).toEqual(['3->1 follow-up 0.8', '4->2 code-history 0.8']);
});

test('sweeps are told by their words across languages, and by their breadth', () => {
  const pr = (title: string, codeFiles = 1) =>
    makePr(1, {
      title,
      files: Array.from({ length: codeFiles }, (_, i) => ({
        path: `src/m${i}.rs`,
        kind: 'code' as const,
        status: 'modified' as const,
        additions: 1,
        deletions: 1,
        binary: false,
      })),
    });
  const sweeps = [
    'Fix new lints in clippy',
    'Reformat with black',
    'add type annotations',
    'Rename jinja2 to jinja',
    'Release version 3.1.5',
    'Bump serde to 1.0.100',
    'golangci-lint fixes',
    'In documentation, prefer https over http when available',
    'Update all pypi.python.org URLs to pypi.org',
    'Fix broken links in the docs',
    'Update every link to the new documentation site',
    'docs: update all URLs to the new domain',
    '[docs] Fix broken links',
    'Fix most of the issues reported by the Visual Studio code analysis tool',
  ];
  const work = [
    'Fix the formatter for dates',
    'Add the printer',
    'Fix release notes link in README',
    'Fix a leak Coverity found in the parser',
    'Support https proxies',
    'Fix format problem with empty objects',
    'Escape all URLs in the generated output',
    'Resolve every link relative to the base URI',
  ];
  expect(sweeps.filter((title) => !isSweep(pr(title)))).toEqual([]);
  expect(work.filter((title) => isSweep(pr(title)))).toEqual([]);
  expect(isSweep(pr('Use the new error type', 25))).toBe(true);
  // Only CI configuration changed, whatever the title says: the pipeline kept running, nobody's code.
  const ci = (path: string) => ({
    path,
    kind: 'other' as const,
    status: 'modified' as const,
    additions: 1,
    deletions: 1,
    binary: false,
  });
  expect(
    isSweep(makePr(2, { title: 'upgrade clang to fix actions error', files: [ci('.github/workflows/CI.yml')] })),
  ).toBe(true);
  expect(
    isSweep(makePr(3, { title: 'Add a CI job', files: [ci('.github/workflows/CI.yml'), ci('CMakeLists.txt')] })),
  ).toBe(false);
});

test('removing what a PR deprecated links to it at any age; rewording a deprecation or removing it in passing does not', async () => {
  const repo = await new ReleaseRepo(join(root, 'deprecations')).init();
  const loader = lines('loader', 10);
  await repo.quickPr(1, 'Add the loader', '', { 'src/loader.py': loader });
  const warned = `${loader}warn("load_all is deprecated", DeprecationWarning)\nwarn("load_one is deprecated", DeprecationWarning)\n`;
  await repo.quickPr(2, 'Deprecate load_all and load_one', '', { 'src/loader.py': warned });
  await repo.quickPr(3, 'Add the parser', '', {
    'src/parser.py': `${lines('parser', 10)}# the strict flag is deprecated\n`,
  });
  // #4 rewords #3's deprecation: it owns the line now, but deprecated nothing.
  await repo.quickPr(4, 'Tidy the parser', '', {
    'src/parser.py': `${lines('parser', 10)}# the strict flag is deprecated: use mode\n`,
  });
  await repo.quickPr(5, 'Remove deprecated code', '', {
    'src/loader.py': warned.replace('warn("load_all is deprecated", DeprecationWarning)\n', ''),
    'src/parser.py': lines('parser', 10),
  });
  // #6 drops the other warning inside a rewrite that never speaks of it.
  await repo.quickPr(6, 'Rewrite the loader', '', { 'src/loader.py': lines('loader2', 10) });

  const { prs } = await readLocalPullRequests(repo.path);
  // No recency window at all: only the deprecation rule can link.
  const edges = await codeHistoryEdges(repo.path, prs, prs, { windowDays: 0 });
  expect(
    edges.map(({ from, to, kind, confidence, evidence }) => `${from}->${to} ${kind} ${confidence}: ${evidence}`),
  ).toEqual(['5->2 follow-up 0.8: #5 removes 1 deprecation line that #2 wrote']);
});

test("a PR that speaks of a sweep's topic and changes lines the sweep wrote repairs the sweep; other PRs blame through it", async () => {
  const repo = await new ReleaseRepo(join(root, 'sweep-repair')).init();
  const parser = lines('parser', 20);
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser });
  const typed = parser.replace(/parser line (\d+)\n/g, 'parser line $1: int\n');
  await repo.quickPr(2, 'Add type annotations', '', { 'src/parser.py': typed });
  await repo.quickPr(3, 'Count lines from zero', '', {
    'src/parser.py': typed.replace('parser line 3: int', 'parser line 3'),
  });
  // #4's title is no sweep's; one of its commits speaks of typing.
  await repo.run('checkout', '-q', '-b', 'py36', 'main');
  await repo.commit('Fix typing that Python 3.6 lacks', {
    'src/parser.py': typed
      .replace('parser line 3: int', 'parser line 3')
      .replace('parser line 9: int', 'parser line 9: "int"'),
  });
  await repo.squashPr(4, 'main', 'py36', 'Support Python 3.6');
  const { prs } = await readLocalPullRequests(repo.path);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(edges.map(({ from, to, confidence, evidence }) => `${from}->${to} ${confidence}: ${evidence}`)).toEqual([
    // One line of a one-line change is not all about #1 (a full share scores 0.8).
    '3->1 0.63: #3 changes 1 line that #1 wrote (67% of its 2 changed lines of code)',
    '4->2 0.78: #4 changes 1 line that #2 wrote (67% of its 2 changed lines of code); #4 speaks of the same sweep',
  ]);
});

test('a PR that rewrites much of what an earlier PR added revisits that work, unless it was opened first or the lines or the share are few', async () => {
  const repo = await new ReleaseRepo(join(root, 'rework')).init();
  const cache = lines('cache', 10) + lines('evict', 6);
  await repo.quickPr(1, 'Add the cache', '', { 'src/cache.py': lines('cache', 10) });
  await repo.quickPr(2, 'Add the eviction policy', '', { 'src/cache.py': cache });
  // #3 rewrites all six lines #2 added among 30 of its own: 12 of its 42 changed lines are #2's.
  await repo.quickPr(3, 'Rework the store', '', {
    'src/cache.py': rewrite(cache, 10, 6, 'store'),
    'src/store.py': lines('store', 30),
  });
  // #5 was opened before #6 yet lands after it, with the same shape: its author wrote it without #6's code.
  await repo.quickPr(6, 'Add the retry policy', '', { 'src/retry.py': lines('retry', 6) });
  await repo.quickPr(5, 'Rework the client', '', {
    'src/retry.py': lines('client', 6),
    'src/client.py': lines('client', 30),
  });
  // #8 rewrites the whole of #7, but two lines are any edit's.
  await repo.quickPr(7, 'Add the flags', '', { 'src/flags.py': lines('flag', 2) });
  await repo.quickPr(8, 'Rework the options', '', {
    'src/flags.py': lines('option', 2),
    'src/options.py': lines('option', 4),
  });
  // #10 rewrites six lines of the thirty #9 added: a fifth of it is a passing touch.
  await repo.quickPr(9, 'Add the parser', '', { 'src/parser.py': lines('parser', 30) });
  await repo.quickPr(10, 'Rework the lexer', '', {
    'src/parser.py': rewrite(lines('parser', 30), 0, 6, 'lexer'),
    'src/lexer.py': lines('lexer', 30),
  });
  const { prs } = await readLocalPullRequests(repo.path);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(edges.map(({ from, to, confidence, evidence }) => `${from}->${to} ${confidence}: ${evidence}`)).toEqual([
    '3->2 0.64: #3 changes 6 lines that #2 wrote (29% of its 42 changed lines of code); that is 100% of the 6 lines of code #2 added',
    '5->6 0.44: #5 changes 6 lines that #6 wrote (29% of its 42 changed lines of code)',
    '8->7 0.55: #8 changes 2 lines that #7 wrote (50% of its 8 changed lines of code)',
    '10->9 0.44: #10 changes 6 lines that #9 wrote (29% of its 42 changed lines of code)',
  ]);
  // Only the first is a link chains are built on.
  const { chains } = await recordsToChains(
    { name: 'app', path: repo.path },
    prs,
    async (some) => some.map((pr) => ({ ...pr, patch: '' })),
    { clone: repo.path },
  );
  expect(chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([[2, 3]]);
});

test('a PR that changes only tests is blamed over its tests, and only PRs opened before it can be whose tests it works on', async () => {
  const repo = await new ReleaseRepo(join(root, 'tests-only')).init();
  const checks = lines('check', 10);
  await repo.quickPr(1, 'Add the zip loader', '', {
    'src/loader.py': lines('loader', 10),
    'tests/test_loader.py': checks,
  });
  await repo.quickPr(2, 'Run the checks on Python 3.13', '', {
    'tests/test_loader.py': rewrite(checks, 2, 2, 'fixed'),
  });
  // #3 was opened before #4, whose tests it rewrites once #4 has landed.
  const probes = lines('probe', 10);
  await repo.quickPr(4, 'Add the cache', '', { 'src/cache.py': lines('cache', 10), 'tests/test_cache.py': probes });
  await repo.quickPr(3, 'Run the probes in parallel', '', { 'tests/test_cache.py': rewrite(probes, 2, 2, 'parallel') });
  // #5 changes code: the test lines of #1 it rewrites are rewritten for its own reasons.
  await repo.quickPr(5, 'Speed up the zip loader', '', {
    'src/loader.py': lines('loader', 10) + lines('fast', 3),
    'tests/test_loader.py': rewrite(rewrite(checks, 2, 2, 'fixed'), 6, 2, 'timed'),
  });
  const { prs } = await readLocalPullRequests(repo.path);
  const edges = await codeHistoryEdges(repo.path, prs, prs);
  expect(edges.map(({ from, to, confidence, evidence }) => `${from}->${to} ${confidence}: ${evidence}`)).toEqual([
    '2->1 0.8: #2 changes 2 lines that #1 wrote (100% of its 4 changed lines of tests)',
  ]);
});
