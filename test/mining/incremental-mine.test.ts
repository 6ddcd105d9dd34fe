import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readChains } from '../../src/mining/output/chains-file';
import { companionPaths } from '../../src/mining/output/mine-to-files';
import { DEFAULT_MIN_CONFIDENCE, DEFAULT_MIN_STRENGTH } from '../../src/mining/chains/chains';
import { DEFAULT_WINDOW_DAYS } from '../../src/mining/links/code-history';
import { MineCursorSchema } from '../../src/mining/output/cursor';
import { MiningSummarySchema } from '../../src/mining/summary';
import { EdgeSchema, PullRequestRecordSchema } from '../../src/schemas';
import { cli } from '../support/cli';
import { growingHistory as history } from './growing-history';

let root: string;
let clone: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-incremental-'));
  clone = join(root, 'acme');
  await history(false).write(clone);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function mine(out: string, ...extra: string[]) {
  const r = await cli(['mine', '--repo', clone, '--name', 'acme/parser', '--out', join(root, out), ...extra], {
    CHAINSMITH_HOME: root,
  });
  return { ...r, ...(r.code === 0 ? await files(out) : {}) };
}

async function files(out: string) {
  const paths = companionPaths(join(root, out));
  const lines = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter(Boolean);
  return {
    chains: (await readChains(join(root, out))).map((chain) => chain.id),
    prs: (await lines(paths.prs)).map((line) => PullRequestRecordSchema.parse(JSON.parse(line)).number),
    edges: (await lines(paths.edges)).map((line) => EdgeSchema.parse(JSON.parse(line))),
    summary: MiningSummarySchema.parse(JSON.parse(await readFile(paths.summary, 'utf8'))),
    cursor: MineCursorSchema.parse(JSON.parse(await readFile(paths.cursor, 'utf8'))),
  };
}

test('a rerun adds only the new PRs and edges, grows the chain a new PR builds on, and keeps the shorter one', async () => {
  const first = await mine('chains.jsonl');
  expect(first.code).toBe(0);
  expect(first.chains).toEqual(['acme/parser#1-2-3', 'acme/parser#4-5']);
  expect(first.cursor?.lastMergedAt).toBe('2024-05-05T10:00:00.000Z');

  const again = await mine('chains.jsonl');
  expect(again.stdout).toMatch(/^nothing new since the last mine/);
  expect(again.chains).toEqual(first.chains);

  await history(true).write(clone);
  const second = await mine('chains.jsonl');
  expect(second.stderr).toBe('');
  expect(second.code).toBe(0);
  expect(second.chains).toEqual([
    'acme/parser#1-2-3',
    'acme/parser#4-5',
    'acme/parser#1-2-3-6',
    'acme/parser#4-5-9',
    'acme/parser#7-8',
  ]);
  expect(second.prs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(second.summary?.incremental).toEqual({
    since: '2024-05-05T10:00:00.000Z',
    newPrs: 4,
    newEdges: 3,
    chainsAdded: 3,
    chainsExtended: 2,
  });
  expect(second.edges?.find((edge) => edge.from === 9)).toMatchObject({ to: 5, kind: 'code-history' });
  expect(second.stdout).toContain('4 new PRs, 3 new edges, 3 new chains (2 grown from an earlier one)');

  // What the rerun added is what a mine of the whole history from scratch finds: no edge lost or doubled.
  const scratch = await mine('scratch.jsonl');
  const key = (edge: { from: number; to: number; kind: string; confidence: number }) =>
    `${edge.from}>${edge.to} ${edge.kind} ${edge.confidence}`;
  expect(second.edges?.map(key)).toEqual(scratch.edges?.map(key));
  expect(scratch.prs).toEqual(second.prs);
});

test('a rerun with other options is refused and names them; --fresh mines from scratch', async () => {
  const refused = await mine('chains.jsonl', '--max-length', '3');
  expect(refused.code).toBe(2);
  expect(refused.stderr.trim()).toBe(
    `error: ${join(root, 'chains.jsonl')} was mined with other options (--max-length 5 then, 3 now): rerun with the same options to add what is new, or add --fresh to mine it again from scratch`,
  );
  const before = await files('chains.jsonl');
  expect(before.chains).toHaveLength(5);

  const fresh = await mine('chains.jsonl', '--max-length', '3', '--fresh');
  expect(fresh.code).toBe(0);
  expect(fresh.summary?.incremental).toBeUndefined();
  expect(fresh.cursor?.options).toMatchObject({ maxLength: 3 });
});

test('the cursor records the defaults a mine ran under: naming a default is the same mine, and a cursor made under another default is refused', async () => {
  const first = await mine('defaults.jsonl');
  expect(first.code).toBe(0);
  expect(first.cursor?.options).toMatchObject({
    minStrength: DEFAULT_MIN_STRENGTH,
    minConfidence: DEFAULT_MIN_CONFIDENCE,
    blameDays: DEFAULT_WINDOW_DAYS,
  });

  const named = await mine('defaults.jsonl', '--min-strength', DEFAULT_MIN_STRENGTH);
  expect({ code: named.code, stderr: named.stderr }).toEqual({ code: 0, stderr: '' });
  expect(named.stdout).toMatch(/^nothing new since the last mine/);

  // As a release whose default was the other strength would have left it.
  const cursorPath = companionPaths(join(root, 'defaults.jsonl')).cursor;
  const other = DEFAULT_MIN_STRENGTH === 'strong' ? 'weak' : 'strong';
  const cursor = MineCursorSchema.parse(JSON.parse(await readFile(cursorPath, 'utf8')));
  await writeFile(cursorPath, JSON.stringify({ ...cursor, options: { ...cursor.options, minStrength: other } }));
  const refused = await mine('defaults.jsonl');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`(--min-strength ${other} then, ${DEFAULT_MIN_STRENGTH} now)`);

  // A version-1 cursor recorded only the options given: it is read as made under today's defaults.
  const defaulted = ['minStrength', 'minConfidence', 'blameDays', 'maxChainsPerPr'];
  const given = Object.fromEntries(Object.entries(cursor.options).filter(([key]) => !defaulted.includes(key)));
  await writeFile(cursorPath, JSON.stringify({ ...cursor, version: 1, options: given }));
  const old = await mine('defaults.jsonl');
  expect({ code: old.code, stderr: old.stderr }).toEqual({ code: 0, stderr: '' });
  expect(old.stdout).toMatch(/^nothing new since the last mine/);
});
