// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import { buildChains } from '../../src/mining/chains/chains';
import { checkLeak } from '../../src/queries/leak-check';
import { measureLeaks, summarizeLeaks } from '../../src/queries/leak-rate';
import { patchSecrets } from '../../src/queries/patch-secrets';
import { templateQueries } from '../../src/queries/template';
import type { Chain, ChainQueries } from '../../src/schemas';
import { extractEdges, mineLocalRepo } from '../support/mining';

let chain: Chain;
let queries: ChainQueries;

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-template-'));
  try {
    const { path } = await generateDemoRepo(join(root, 'tally'));
    const prs = await mineLocalRepo(path);
    [chain] = buildChains({ name: 'demo/tally', path }, prs, extractEdges(prs));
    queries = templateQueries(chain);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

const texts = (): string[] => [queries.overview, ...queries.stages.map((stage) => stage.text)];

test('one query per stage, in chain order, from the template generator', () => {
  expect(queries.generator).toBe('template');
  expect(queries.stages.map((stage) => stage.prNumber)).toEqual([2, 4, 6]);
});

test('no query names a PR number, quotes code or repeats a name the patches add', () => {
  for (const text of texts()) {
    expect(text).not.toMatch(/#\d/);
    expect(text).not.toContain('`');
    expect(text).not.toMatch(/\w\(/); // no calls such as median([1, 2, 3, 4])
    expect(text).not.toMatch(/\b(median|key|ValueError|tally\.stats)\b/);
  }
});

test('queries keep the intent and say where the change belongs', () => {
  const [first, second, third] = queries.stages.map((stage) => stage.text);
  expect(first).toContain('returns its middle element');
  expect(second).toMatch(/^Fix regression from an earlier stage: /);
  expect(second).toContain('gave 3 instead of 2.5');
  expect(third).toMatch(/^Follow-up to an earlier stage: /);
  for (const text of [first, second, third]) expect(text).toMatch(/The change belongs in: tally\/\.$/);
});

test('the overview names the repository, the number of stages and the first goal', () => {
  expect(queries.overview).toMatch(/^Repository demo\/tally: 3 stages\b/);
  expect(queries.overview).toContain('Overall goal: Add … to …');
});

test('the leak check finds nothing in the template queries of the demo chain', () => {
  const measured = measureLeaks(queries, chain);
  expect(summarizeLeaks([measured])).toMatchObject({ queries: 4, caught: 0, leaked: 0, rate: 0 });
  // The raw PR text, by contrast, gives the edit away: the title names the function PR #2 adds.
  expect(checkLeak(chain.prs[0].title, patchSecrets(chain.prs[0].patch)).findings).toContainEqual({
    kind: 'name',
    text: 'median',
    weight: 0.4,
  });
});
