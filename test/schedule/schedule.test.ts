import type { WorkflowExecutionDescription } from '@temporalio/client';
import { appendFile, mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readChains } from '../../src/mining/output/chains-file';
import { mineChains } from '../../src/mining/output/mine-to-files';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import { git } from '../../src/git';
import { scheduleFolder } from '../../src/schedule/scheduled-mine';
import type { ScheduledRunReport } from '../../src/workflows/types';
import type { BatchCounts } from '../../src/workflows/batch-workflow';
import { cli } from '../support/cli';
import { startEngines, testConfig, type Engines } from '../support/engines';

jest.setTimeout(15 * 60_000);

const config = testConfig();
const name = `sched-${Date.now()}/tally`;
const scheduleId = `test-${process.pid}-${Date.now()}`;
let engines: Engines;
let stop: () => void;
let running: Promise<unknown>;
/** Batches the runs started: a failed test must not leave them running on the shared server. */
const batches = new Set<string>();
let root: string;
let upstream: string;
let clone: string;

const chainsmith = (...args: string[]) => cli(args, { CHAINSMITH_HOME: config.dataDir });

/** A squash landing on the upstream, a day after the one before, committed by GitHub as its button does. */
async function land(
  number: number,
  title: string,
  files: Record<string, string>,
  appended: Record<string, string> = {},
): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(upstream, path)), { recursive: true });
    await writeFile(join(upstream, path), text);
  }
  for (const [path, text] of Object.entries(appended)) await appendFile(join(upstream, path), text);
  const last = Number((await git(upstream, ['log', '-1', '--format=%ct'])).trim());
  const date = `${last + 86_400} +0000`;
  const env = {
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
    GIT_AUTHOR_NAME: 'Dee',
    GIT_AUTHOR_EMAIL: 'dee@tally.example',
    GIT_COMMITTER_NAME: 'GitHub',
    GIT_COMMITTER_EMAIL: 'noreply@github.com',
  };
  await git(upstream, ['add', '-A']);
  await git(upstream, ['commit', '-q', '-m', `${title} (#${number})`], { env });
}

const SPREAD = `

def spread(values):
    """Largest minus smallest value of a non-empty sequence."""
    if not values:
        raise ValueError("spread() of an empty sequence")
    return max(values) - min(values)
`;
const TEST_SPREAD = `from tally.stats import spread


def test_spread():
    assert spread([3, 1, 4]) == 3
`;
const mode = (pick: 'max' | 'min') => `def mode(values):
    """The most common value; among ties, the ${pick === 'min' ? 'smallest' : 'largest'}."""
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    best = max(counts.values())
    return ${pick}(value for value, count in counts.items() if count == best)
`;

/** The nth run the schedule took (1-based), once it has closed. */
async function run(
  n: number,
): Promise<{ status: string; report: Partial<ScheduledRunReport>; description: WorkflowExecutionDescription }> {
  const handle = engines.client.schedule.getHandle(scheduleId);
  for (;;) {
    const action = (await handle.describe()).info.recentActions[n - 1];
    if (action) {
      const workflow = engines.client.workflow.getHandle(
        action.action.workflow.workflowId,
        action.action.workflow.firstExecutionRunId,
      );
      await workflow.result().catch(() => undefined);
      const description = await workflow.describe();
      const report = (description.memo?.report ?? {}) as Partial<ScheduledRunReport>;
      for (const started of report.started ?? []) if (started.batchWorkflowId) batches.add(started.batchWorkflowId);
      return { status: description.status.name, report, description };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const batchResult = (workflowId: string) =>
  engines.client.workflow.getHandle(workflowId).result() as Promise<BatchCounts>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-schedule-'));
  upstream = (await generateDemoRepo(join(root, 'upstream'))).path;
  clone = join(root, 'clone');
  await git(root, ['clone', '-q', upstream, clone]);
  engines = await startEngines(config);
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  running = Promise.all(engines.workers.map((w) => w.runUntil(stopped)));
});

afterAll(async () => {
  await engines.client.schedule
    .getHandle(scheduleId)
    .delete()
    .catch(() => undefined);
  for (const id of batches)
    await engines.client.workflow
      .getHandle(id)
      .cancel()
      .catch(() => undefined);
  await Promise.all(
    [...batches].map((id) =>
      engines.client.workflow
        .getHandle(id)
        .result()
        .catch(() => undefined),
    ),
  );
  stop();
  await running;
  await engines.close();
});

test('scheduled runs start only the chains new since the last, grow the old one, and a repository that cannot be fetched fails its run', async () => {
  // The cutoff is #4's merge: the demo chain #2 → #4 → #6 straddles it, so its inside part #4 → #6 is mined.
  const { records } = await mineChains(upstream, name);
  const cutoff = records.find((pr) => pr.number === 4)?.mergedAt as string;
  const reposFile = join(root, 'repos.txt');
  await writeFile(reposFile, `# the demo, fetched from its upstream each run\nclone name=${name}\n`);
  const created = await chainsmith(
    'schedule',
    'create',
    scheduleId,
    '--repos',
    reposFile,
    '--every',
    '1d',
    '--paused',
    '--policy',
    'gold-replay',
    '--attempts',
    '1',
    '--merged-after',
    cutoff,
    '--task-queue',
    engines.taskQueue,
  );
  expect(created.stderr).toBe('');
  expect(created.stdout).toContain(`created schedule ${scheduleId}: every 1d, 1 repositories, policy gold-replay`);

  expect((await chainsmith('schedule', 'trigger', scheduleId)).code).toBe(0);
  const first = await run(1);
  expect(first.status).toBe('COMPLETED');
  expect(first.report.started).toEqual([
    { source: clone, newChains: 1, chains: [`${name}#4-6`], batchWorkflowId: expect.stringMatching(/^batch-/) },
  ]);
  expect(first.description.searchAttributes.TemporalScheduledById).toEqual([scheduleId]);
  const firstBatch = batchResult(first.report.started?.[0].batchWorkflowId as string);

  // Three PRs land upstream: #7 follows up #6, #8 → #9 is new work. Then the upstream goes away.
  await land(7, 'Follow-up to #6: add spread()', { 'tests/test_spread.py': TEST_SPREAD }, { 'tally/stats.py': SPREAD });
  await land(8, 'Add mode() to tally', {
    'tally/mode.py': mode('max'),
    'tests/test_mode.py': 'from tally.mode import mode\n\n\ndef test_mode():\n    assert mode([1, 2, 2, 3]) == 2\n',
  });
  await land(9, 'Fix regression from #8: mode() of ties is the smallest', {
    'tally/mode.py': mode('min'),
    'tests/test_mode_ties.py':
      'from tally.mode import mode\n\n\ndef test_mode_of_ties():\n    assert mode([3, 3, 1, 1]) == 1\n',
  });
  await rename(upstream, `${upstream}-away`);

  await chainsmith('schedule', 'trigger', scheduleId);
  const second = await run(2);
  expect(second.status).toBe('FAILED');
  expect(second.report.started).toEqual([]);
  expect(second.report.failed).toEqual([
    { source: clone, reason: expect.stringMatching(new RegExp(`^cannot fetch ${clone} from origin: .*${upstream}`)) },
  ]);

  await rename(`${upstream}-away`, upstream);
  await chainsmith('schedule', 'trigger', scheduleId);
  const third = await run(3);
  expect(third.status).toBe('COMPLETED');
  expect(third.report.started).toEqual([
    {
      source: clone,
      newChains: 2,
      chains: [`${name}#4-6-7`, `${name}#8-9`],
      batchWorkflowId: expect.stringMatching(/^batch-/),
    },
  ]);

  // The schedule's files keep the shorter chain beside the one grown from it.
  const folder = scheduleFolder(config, scheduleId, `0-${name.replace('/', '_')}`);
  expect((await readChains(join(folder, 'chains.jsonl'))).map((chain) => chain.id)).toEqual([
    `${name}#4-6`,
    `${name}#4-6-7`,
    `${name}#8-9`,
  ]);
  expect(JSON.parse(await readFile(join(folder, 'chains.cursor.json'), 'utf8')).options).toMatchObject({
    mergedAfter: cutoff,
  });

  const described = await chainsmith('schedule', 'describe', scheduleId);
  expect(described.stdout).toContain(`schedule ${scheduleId}: paused (created paused), every 1d, 3 run(s) so far`);
  expect(described.stdout).toMatch(/FAILED .*\n\s+\S+ failed: cannot fetch/);
  expect(described.stdout).toContain(`${clone}: 2 new chain(s) → ${third.report.started?.[0].batchWorkflowId}`);

  const status = await chainsmith('status');
  expect(status.stdout).toContain(`schedule ${scheduleId}: paused (created paused), every 1d, 3 run(s) so far`);
  expect(status.stdout).toContain(`${clone}: 1 new chain(s) → ${first.report.started?.[0].batchWorkflowId}`);
  expect((await chainsmith('schedule', 'resume', scheduleId)).stdout).toBe(`schedule ${scheduleId} resumed\n`);
  expect((await chainsmith('schedule', 'describe', scheduleId)).stdout).toMatch(
    new RegExp(`^schedule ${scheduleId}: active, every 1d, 3 run\\(s\\) so far, next 20`),
  );
  await chainsmith('schedule', 'pause', scheduleId);

  // Every chain a run started runs to the end under gold replay.
  expect(await firstBatch).toMatchObject({ accepted: 1, failed: 0 });
  expect(await batchResult(third.report.started?.[0].batchWorkflowId as string)).toMatchObject({
    accepted: 2,
    failed: 0,
  });
});
