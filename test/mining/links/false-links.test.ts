// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkingEdges } from '../../../src/mining/chains/chains';
import { readLocalPullRequests } from '../../../src/mining/landings/local-git';
import { recordsToChains } from '../../../src/mining/pipeline';
import type { Edge } from '../../../src/schemas';
import { HistoryBuilder } from '../history-builder';
import { lines, ReleaseRepo, rewrite } from '../release-branch';

/**
 * One generated history per cause of false code-history links on real repositories (issue 24): each
 * asserts the exact edges, with kind, strength and confidence, and so the ones that must not link.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-false-links-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function mined(repo: ReleaseRepo) {
  const { prs, pullNumbers } = await readLocalPullRequests(repo.path);
  const patches = async (records: typeof prs) => records.map((pr) => ({ ...pr, patch: '' }));
  return recordsToChains({ name: 'app', path: repo.path }, prs, patches, { clone: repo.path, pullNumbers });
}

const described = (edges: Edge[]) =>
  edges.map(({ from, to, kind, strength, confidence }) => `${from}->${to} ${kind} ${strength} ${confidence}`);
const links = (edges: Edge[]) => linkingEdges(edges).map(({ from, to }) => `${from}->${to}`);

test('blame through a reformat lands on a PR that never wrote the line: no link; through a reformat sweep it reaches the writer', async () => {
  const repo = await new ReleaseRepo(join(root, 'reformat')).init();
  const cache = lines('cache', 12);
  await repo.quickPr(1, 'Add the cache', '', { 'src/cache.py': cache });
  // #2 joins lines 3 and 4 into one: blame now names #2 for a line #1 wrote.
  const joined = cache.replace('cache line 3\ncache line 4\n', 'cache line 3 cache line 4\n');
  await repo.quickPr(2, 'Tidy the cache module', '', { 'src/cache.py': joined });
  await repo.quickPr(3, 'Evict on write', '', {
    'src/cache.py': joined.replace('cache line 3 cache line 4', 'evict line 3') + lines('evict', 3),
  });
  // A reformat sweep is looked through: #6 reaches #4, who wrote what #5 re-indented.
  const store = lines('store', 12);
  await repo.quickPr(4, 'Add the store', '', { 'src/store.py': store });
  const indented = store.replace(/^/gm, '    ').replace(/ {4}$/, '');
  await repo.quickPr(5, 'Reformat with black', '', { 'src/store.py': indented });
  await repo.quickPr(6, 'Flush the store in batches', '', { 'src/store.py': rewrite(indented, 1, 3, '    flush') });
  const { edges } = await mined(repo);
  expect(described(edges)).toEqual(['6->4 code-history strong 0.8']);
});

test('a move or file split is no endpoint: neither the PR that moves code nor the one blame then names for it', async () => {
  const repo = await new ReleaseRepo(join(root, 'move')).init();
  const helpers = lines('helper', 12);
  await repo.quickPr(1, 'Add the helpers', '', { 'src/helpers.py': helpers });
  const [kept, moved] = [
    helpers.split('\n').slice(0, 6).join('\n') + '\n',
    helpers.split('\n').slice(6, 12).join('\n') + '\n',
  ];
  // #2 moves half of #1's helpers into their own module, changing none of them.
  await repo.quickPr(2, 'Put the text helpers together', '', { 'src/helpers.py': kept, 'src/text.py': moved });
  // #3 rewrites two moved lines: blame names #2, which only moved them.
  await repo.quickPr(3, 'Speed up the text helpers', '', {
    'src/text.py': rewrite(moved, 1, 2, 'fast') + lines('fast', 2),
  });
  const { edges } = await mined(repo);
  expect(described(edges)).toEqual([]);
});

test("a catch-up merge on a branch that re-wraps another PR's lines does not make that branch their writer", async () => {
  const repo = await new ReleaseRepo(join(root, 'catch-up')).init();
  const parser = lines('parser', 12);
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser });
  // #3's branch starts, then #2 lands on main; #3 catches up and its merge re-wraps two of #2's lines.
  await repo.run('checkout', '-q', '-b', 'pr-3', 'main');
  await repo.commit('Add the lexer', { 'src/lexer.py': lines('lexer', 10) });
  const tuned = rewrite(parser, 4, 2, 'tuned');
  await repo.quickPr(2, 'Tune the parser', '', { 'src/parser.py': tuned });
  await repo.run('checkout', '-q', 'pr-3');
  await repo.run('merge', '-q', '--no-commit', 'main');
  await repo.commit("Merge branch 'main' into pr-3", {
    'src/parser.py': tuned.replace('tuned 5\ntuned 6', 'tuned 5 tuned 6'),
  });
  await repo.commit('Lex numbers', { 'src/lexer.py': lines('lexer', 10) + lines('number', 2) });
  await repo.mergePr(3, 'main', 'pr-3', 'Add the lexer');
  // #4 rewrites the re-wrapped line: #3 only merged it in, #2 wrote it in another shape.
  const current = tuned.replace('tuned 5\ntuned 6', 'tuned 5 tuned 6');
  await repo.quickPr(4, 'Parse hex numbers', '', {
    'src/parser.py': current.replace('tuned 5 tuned 6', 'hex 5') + lines('hex', 3),
  });
  const { edges } = await mined(repo);
  expect(described(edges)).toEqual(['2->1 code-history strong 0.9']);
});

test('a one-line PR is not all about the line it changes: an unused import links nothing, a docs link stays weak, a one-line code change is a weak link below a full rewrite, a one-line fix a strong one', async () => {
  const repo = await new ReleaseRepo(join(root, 'one-line')).init();
  const loader = `import os\n# docs: https://example.test/old\n${lines('loader', 10)}`;
  await repo.quickPr(1, 'Add the loader', '', { 'src/loader.py': loader });
  await repo.quickPr(2, 'Remove unused import', '', { 'src/loader.py': loader.replace('import os\n', '') });
  let current = loader.replace('import os\n', '');
  await repo.quickPr(3, 'Point at the new docs', '', { 'src/loader.py': (current = current.replace('old', 'new')) });
  await repo.quickPr(4, 'Use a tuple', '', { 'src/loader.py': (current = rewrite(current, 3, 1, 'tuple')) });
  await repo.quickPr(5, 'Fix the off-by-one in the loader', '', { 'src/loader.py': rewrite(current, 6, 1, 'bounded') });
  const { edges, chains } = await mined(repo);
  // Rewriting every line it changes would score 0.8 (see the sweep test below): a one-liner is not all about #1.
  expect(described(edges)).toEqual([
    '3->1 code-history weak 0.38',
    '4->1 code-history weak 0.63',
    '5->1 code-history strong 0.88',
  ]);
  expect(edges[1].strengthWhy).toBe('#4 changes one line of code #1 wrote');
  expect(edges[2].evidence).toBe(
    '#5 changes 1 line that #1 wrote (67% of its 2 changed lines of code); #5 says it fixes; both name loader',
  );
  expect(links(edges)).toEqual(['5->1']);
  expect(chains.map((chain) => [chain.id, chain.strength])).toEqual([['app#1-5', 'strong']]);
});

test('sweeps are no endpoint on either side: a typing pass, a version bump and a CI migration link nothing; blame sees through them', async () => {
  const repo = await new ReleaseRepo(join(root, 'sweep')).init();
  const api = `__version__ = "1.0.0"\n${lines('api', 12)}`;
  await repo.quickPr(1, 'Add the API', '', { 'src/api.py': api });
  const typed = api.replace(/api line (\d+)\n/g, 'api line $1: int\n');
  await repo.quickPr(2, 'Add type annotations', '', { 'src/api.py': typed });
  await repo.quickPr(3, 'Release version 1.1.0', '', { 'src/api.py': typed.replace('1.0.0', '1.1.0') });
  const current = typed.replace('1.0.0', '1.1.0');
  await repo.quickPr(4, 'Migrate CI to GitHub Actions', '', {
    'src/api.py': current.replace('api line 12: int', 'api line 12: int  # pragma: no cover'),
  });
  // #5 changes typed lines: blame sees through the typing pass to #1.
  await repo.quickPr(5, 'Retry failed API calls', '', {
    'src/api.py': rewrite(current, 2, 3, 'retry') + lines('retry', 2),
  });
  const { edges } = await mined(repo);
  expect(described(edges)).toEqual(['5->1 code-history strong 0.68']);
});

test('an edit a PR repeats on many lines is a sweep inside it: those lines link nothing, the rest of its change counts as the small share of it that it is; repeated a few times it is an edit', async () => {
  const repo = await new ReleaseRepo(join(root, 'repeated')).init();
  const totals = Array.from({ length: 12 }, (_, i) => `total_${i + 1} = compute(${i + 1})\n`).join('');
  await repo.quickPr(1, 'Add the totals', '', { 'src/totals.py': totals });
  await repo.quickPr(2, 'Add the report', '', { 'src/report.py': lines('report', 8) });
  // #3 calls evaluate() for compute() on nine of #1's lines (a sweep its title does not name), and
  // really changes two lines of #2's report.
  const evaluated = totals.replace(/compute\((\d)\)/g, 'evaluate($1)');
  await repo.quickPr(3, 'Evaluate totals lazily', '', {
    'src/totals.py': evaluated,
    'src/report.py': rewrite(lines('report', 8), 2, 2, 'lazy') + lines('lazy', 2),
  });
  // #4 makes the same edit on the three lines left: an edit of #1's lines, not a sweep.
  await repo.quickPr(4, 'Evaluate the last totals', '', { 'src/totals.py': evaluated.replace(/compute/g, 'evaluate') });
  const { edges } = await mined(repo);
  expect(described(edges)).toEqual(['3->2 code-history strong 0.38', '4->1 code-history strong 0.8']);
});

test('an overlap in docstrings or comments alone counts for little and is weak; beside code it is part of the change', async () => {
  const repo = await new ReleaseRepo(join(root, 'docstring')).init();
  const body = lines('parse', 8);
  const doc = '    """Parse the input.\n\n    Returns the tree of the input.\n    Raises on bad input.\n    """\n';
  const parser = `def parse(text):\n${doc}${body}`;
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser });
  // #2 rewrites two docstring lines of #1 and nothing else.
  await repo.quickPr(2, 'Clarify the parser docs', '', {
    'src/parser.py': parser.replace(
      'Returns the tree of the input.\n    Raises on bad input.',
      'Returns a syntax tree.\n    Raises ParseError.',
    ),
  });
  const printer = `/* Print a value.\n * Returns the bytes written.\n */\n${lines('print', 8)}`;
  await repo.quickPr(3, 'Add the printer', '', { 'src/printer.c': printer });
  await repo.quickPr(4, 'Say what the printer returns', '', {
    'src/printer.c': printer.replace(' * Returns the bytes written.', ' * Returns the number of bytes written.'),
  });
  const { edges } = await mined(repo);
  expect(described(edges)).toEqual(['2->1 code-history weak 0.45', '4->3 code-history weak 0.45']);
  expect(links(edges)).toEqual([]);
  expect(edges[0].strengthWhy).toBe('#2 changes only comments or docstrings #1 wrote');
});

test('a deprecation removal links, weakly, to the PR that deprecated; not when it fans in to many, nor to a docstring note', async () => {
  const repo = await new ReleaseRepo(join(root, 'deprecation')).init();
  const warn = (name: string) =>
    `def ${name}():\n    warnings.warn("${name} is deprecated", DeprecationWarning)\n    return new_${name}()\n`;
  const names = ['load', 'dump', 'scan', 'walk'];
  for (const [i, name] of names.entries())
    await repo.quickPr(i + 1, `Deprecate ${name}`, '', { [`src/${name}.py`]: `${lines(name, 6)}${warn(name)}` });
  repo.advance(800);
  // #5 removes the four deprecations at once: a removal sweep, no follow-up of any one of them.
  await repo.quickPr(
    5,
    'Remove deprecated functions',
    '',
    Object.fromEntries(names.map((name) => [`src/${name}.py`, lines(name, 6)])),
  );
  await repo.quickPr(6, 'Deprecate the old reader', '', { 'src/reader.py': `${lines('reader', 6)}${warn('read')}` });
  // #7 only notes a deprecation in a docstring.
  await repo.quickPr(7, 'Add the writer', '', {
    'src/writer.py': `def write():\n    """Write it.\n\n    The mode argument is deprecated.\n    """\n${lines('writer', 6)}`,
  });
  repo.advance(800);
  await repo.quickPr(8, 'Remove the deprecated reader and writer mode', '', {
    'src/reader.py': lines('reader', 6),
    'src/writer.py': `def write():\n    """Write it."""\n${lines('writer', 6)}`,
  });
  const { edges } = await mined(repo);
  // #5's and #8's lines are more than a year after the deprecations: only the deprecation rule links.
  expect(described(edges)).toEqual(['8->6 follow-up weak 0.8']);
  expect(edges[0].strengthWhy).toBe('deprecate → remove: #8 removes what #6 deprecated');
});

test('a backport (the same patch landed again) and the branch sync that brings it are no stages: links to the copy go to the original', async () => {
  const repo = await new ReleaseRepo(join(root, 'backport')).init();
  const parser = lines('parser', 12);
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser });
  await repo.run('branch', '1.x', 'main');
  const fixed = rewrite(parser, 3, 2, 'guarded');
  await repo.quickPr(2, 'Fix the parser crash on empty input', '', { 'src/parser.py': fixed });
  // #3 lands the same patch on 1.x; #4 merges 1.x (with a version commit of its own) back into main.
  await repo.run('checkout', '-q', '-b', 'pr-3', '1.x');
  await repo.commit('Fix the parser crash on empty input', { 'src/parser.py': fixed });
  await repo.squashPr(3, '1.x', 'pr-3', 'Fix the parser crash on empty input');
  await repo.run('checkout', '-q', '1.x');
  await repo.commit('Set the 1.0.1 version', { 'src/version.py': '__version__ = "1.0.1"\n' });
  await repo.run('checkout', '-q', '-b', 'pr-4', '1.x');
  await repo.mergePr(4, 'main', 'pr-4', 'Merge 1.x into main');
  await repo.quickPr(5, 'Report the position of empty input', 'Follows up on #3.', {
    'src/report.py': lines('report', 4),
  });
  const { edges, summary, stageable } = await mined(repo);
  expect(described(edges)).toEqual(['2->1 code-history strong 0.9', '5->2 follow-up strong 0.9']);
  expect(edges[1].evidence).toContain('#3 is the same patch as #2');
  expect(stageable).toEqual([1, 2, 5]);
  expect(summary.dropped).toMatchObject({ copy: 1, 'branch-sync': 1 });
});

test('a PR without code is blamed all the same: a docs typo fix links weakly, a docs edit without words of a fix stays below a link; an oversized PR is not blamed', async () => {
  const repo = await new ReleaseRepo(join(root, 'no-stage')).init();
  const parser = lines('parser', 12);
  const guide = lines('The parser reads', 12);
  await repo.quickPr(1, 'Add the parser', '', { 'src/parser.py': parser, 'docs/parser.md': guide });
  // Docs only: no stage, but fixing the text #1 wrote is working on #1's text.
  const corrected = rewrite(guide, 2, 1, 'corrected');
  await repo.quickPr(2, 'Fix a typo in the parser guide', '', { 'docs/parser.md': corrected });
  // Docs only, and no word of a fix: an edit in passing, below a link.
  await repo.quickPr(3, 'Describe the options', '', { 'docs/parser.md': rewrite(corrected, 6, 2, 'options') });
  // Too large to be a stage (a generated table beside it): a change of its own, blamed on no one.
  await repo.quickPr(4, 'Fix the parser on empty input', '', {
    'src/parser.py': rewrite(parser, 3, 4, 'fixed'),
    'data/table.csv': lines('row', 2100),
  });
  const { edges, chains, stageable } = await mined(repo);
  expect(described(edges)).toEqual(['2->1 code-history weak 0.73', '3->1 code-history weak 0.45']);
  expect(edges[0].strengthWhy).toBe("#2 changes only docs or build files, #1's among them");
  expect(stageable).toEqual([1]);
  expect(chains).toEqual([]);
});

test('a release that lands a branch of work carries that work: a fix of it links to the release, whose bump commit links nothing', async () => {
  const path = join(root, 'release-work');
  const printer = lines('printer', 12);
  const compact = rewrite(printer, 2, 3, 'compact');
  await new HistoryBuilder({ 'src/printer.c': printer, 'src/version.h': '#define VERSION 1\n' })
    .pr({
      number: 10,
      title: 'Release version 1.1',
      landing: 'merge',
      commits: [
        { message: 'Print empty objects on one line', files: { 'src/printer.c': compact } },
        { message: 'Release version 1.1', files: { 'src/version.h': '#define VERSION 2\n' } },
      ],
    })
    .pr({
      number: 11,
      title: 'Fix the compact printer on nested objects',
      landing: 'merge',
      commits: [
        {
          message: 'Fix the compact printer on nested objects',
          files: { 'src/printer.c': rewrite(compact, 2, 3, 'nested') },
        },
      ],
    })
    .pr({
      number: 12,
      title: 'Store the version as a string',
      landing: 'merge',
      commits: [{ message: 'Store the version as a string', files: { 'src/version.h': '#define VERSION "2"\n' } }],
    })
    .write(path);
  const { prs, pullNumbers } = await readLocalPullRequests(path);
  const patches = async (records: typeof prs) => records.map((pr) => ({ ...pr, patch: '' }));
  const { edges } = await recordsToChains({ name: 'app', path }, prs, patches, { clone: path, pullNumbers });
  expect(described(edges)).toEqual(['11->10 code-history strong 0.9']);
});
