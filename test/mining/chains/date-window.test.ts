import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readChains } from '../../../src/mining/output/chains-file';
import { companionPaths, mineToFiles } from '../../../src/mining/output/mine-to-files';
import { MiningSummarySchema } from '../../../src/mining/summary';
import { cli } from '../../support/cli';
import { FakeGitHub } from '../../support/fake-github';
import { fakeRepoFromClone } from '../github-fixtures';
import { HistoryBuilder } from '../history-builder';

let root: string;
let clone: string;

/**
 * Four runs of follow-ups, PR numbers in merge order. The window below is June 2024:
 * 1-2 lies before it; 3-4-5-7 straddles its start (#5 lands exactly on it); 6-8 lies inside;
 * 9-10 straddles its end (#10 lands exactly on it).
 */
const MERGED: Record<number, string> = {
  1: '2024-04-01T10:00:00Z',
  2: '2024-04-10T10:00:00Z',
  3: '2024-05-01T10:00:00Z',
  4: '2024-05-15T10:00:00Z',
  5: '2024-06-01T00:00:00Z',
  6: '2024-06-05T10:00:00Z',
  7: '2024-06-10T10:00:00Z',
  8: '2024-06-20T10:00:00Z',
  9: '2024-06-25T10:00:00Z',
  10: '2024-07-01T00:00:00Z',
};
const FOLLOWS: Record<number, number> = { 2: 1, 4: 3, 5: 4, 7: 5, 8: 6, 10: 9 };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-dates-'));
  clone = join(root, 'dated');
  const history = new HistoryBuilder({ 'dated/__init__.py': '' });
  for (const [n, mergedAt] of Object.entries(MERGED).map(([n, at]) => [Number(n), at] as const)) {
    const title = FOLLOWS[n] ? `Follow-up to #${FOLLOWS[n]}: step ${n}` : `Start feature ${n}`;
    // Each PR adds its own file: no code history links runs to each other.
    history.pr({
      number: n,
      title,
      landing: 'merge',
      mergedAt,
      commits: [{ message: title, files: { [`dated/step_${n}.py`]: `STEP = ${n}\n` } }],
    });
  }
  await history.write(clone);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function mine(out: string, ...window: string[]) {
  const r = await cli(['mine', '--repo', clone, '--name', 'acme/dated', '--out', join(root, out), ...window], {
    CHAINSMITH_HOME: root,
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const paths = companionPaths(join(root, out));
  return {
    stdout: r.stdout,
    chains: (await readChains(join(root, out))).map((chain) => chain.prs.map((pr) => pr.number)),
    edges: await readFile(paths.edges, 'utf8'),
    summary: MiningSummarySchema.parse(JSON.parse(await readFile(paths.summary, 'utf8'))),
  };
}

test('only chains merged inside the window are mined; a straddling chain keeps its inside part; outside PRs still link', async () => {
  const undated = await mine('all.jsonl');
  expect(undated.chains).toEqual([
    [1, 2],
    [3, 4, 5, 7],
    [6, 8],
    [9, 10],
  ]);
  expect(undated.summary.dates).toBeUndefined();

  const june = await mine('june.jsonl', '--merged-after', '2024-06-01', '--merged-before', '2024-07-01');
  // #5, merged exactly at --merged-after, is in; #10, merged exactly at --merged-before, is out.
  expect(june.chains).toEqual([
    [5, 7],
    [6, 8],
  ]);
  expect(june.edges).toBe(undated.edges);
  expect(june.summary).toMatchObject({
    prsSeen: 10,
    prsEligible: 5,
    dropped: { 'outside-window': 5 },
    chains: 2,
    dates: {
      mergedAfter: '2024-06-01T00:00:00.000Z',
      mergedBefore: '2024-07-01T00:00:00.000Z',
      chainsLeftOut: 3,
      chainsShortened: 1,
    },
  });
  expect(june.stdout).toMatch(/^mined 10 PRs \(5 eligible; left out 5 outside-window\)$/m);
  expect(june.stdout).toMatch(
    /^dates: merged from 2024-06-01T00:00:00\.000Z before 2024-07-01T00:00:00\.000Z; 3 chain\(s\) reaching outside left out, 1 kept as their inside part$/m,
  );
});

test('one side of the window alone, given as a time with its zone', async () => {
  // 10:00 in UTC+2 is 08:00Z: #9 (10:00Z that day) and #10 are in, #8 is out.
  const late = await mine('late.jsonl', '--merged-after', '2024-06-25T10:00:00+02:00');
  expect(late.chains).toEqual([[9, 10]]);
  expect(late.summary.dates).toEqual({ mergedAfter: '2024-06-25T08:00:00.000Z', chainsLeftOut: 3, chainsShortened: 0 });
});

test('the GitHub source keeps the same window, by the merge times the API gives', async () => {
  const fake = new FakeGitHub([await fakeRepoFromClone('acme', 'dated', clone)], { token: 'secret' });
  const baseUrl = await fake.start();
  try {
    const result = await mineToFiles(
      {
        github: 'acme/dated',
        clone,
        out: join(root, 'github.jsonl'),
        mergedAfter: '2024-06-01T00:00:00.000Z',
        mergedBefore: '2024-07-01T00:00:00.000Z',
      },
      {
        dataDir: root,
        env: { CHAINSMITH_GITHUB_URL: baseUrl, GITHUB_TOKEN: 'secret' },
        warn: () => undefined,
        secondMs: 5,
      },
    );
    expect(result.chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([
      [5, 7],
      [6, 8],
    ]);
    expect(result.summary.dates).toMatchObject({ chainsLeftOut: 3, chainsShortened: 1 });
  } finally {
    await fake.stop();
  }
});

test('a bad date or an empty window: one error line, exit 2, before anything is mined', async () => {
  const out = join(root, 'bad.jsonl');
  const notRepo = await mkdtemp(join(root, 'plain-'));
  const cases: [string[], string][] = [
    [
      ['--merged-after', '2024-02-30'],
      '--merged-after must be a day (2024-06-01) or a time with its zone (2024-06-01T12:00:00Z), got "2024-02-30"',
    ],
    [
      ['--merged-before', 'last week'],
      '--merged-before must be a day (2024-06-01) or a time with its zone (2024-06-01T12:00:00Z), got "last week"',
    ],
    [
      ['--merged-before', '2024-06-01T12:00'],
      '--merged-before must be a day (2024-06-01) or a time with its zone (2024-06-01T12:00:00Z), got "2024-06-01T12:00"',
    ],
    [
      ['--merged-after', '2024-07-01', '--merged-before', '2024-07-01'],
      '--merged-after 2024-07-01T00:00:00.000Z is not before --merged-before 2024-07-01T00:00:00.000Z: no PR can be merged in between',
    ],
  ];
  for (const [window, message] of cases) {
    // Not a repository: had mining started, that would be the error.
    const r = await cli(['mine', '--repo', notRepo, '--out', out, ...window], { CHAINSMITH_HOME: root });
    expect({ window, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      window,
      code: 2,
      stderr: `error: ${message}\n`,
      stdout: '',
    });
  }
});
