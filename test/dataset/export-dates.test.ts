import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManifestSchema } from '../../src/dataset/manifest';
import type { ChainRun } from '../../src/schemas';
import { cli } from '../support/cli';
import { acceptedRun, trajectory } from './runs';

/** An accepted run of its own chain and conversation (same content would be a duplicate), merged when given. */
function run(prs: [number, number], mergedAt?: [string, string]): ChainRun {
  return acceptedRun({
    workflowId: `chain-example-cache-${prs.join('-')}-model`,
    chainId: `example/cache#${prs.join('-')}`,
    prs,
    ...(mergedAt ? { mergedAt } : {}),
    stages: prs.map((prNumber) => ({ prNumber, status: 'accepted', rounds: [{ round: 0, score: 0.9, passed: true }] })),
    trajectory: trajectory(prs.join('-')),
  });
}

async function hashes(dir: string): Promise<string[]> {
  return Promise.all(
    (await readdir(dir)).sort().map(
      async (f) =>
        `${f} ${createHash('sha256')
          .update(await readFile(join(dir, f)))
          .digest('hex')}`,
    ),
  );
}

describe('chainsmith export --merged-after/--merged-before through the built CLI', () => {
  let dir: string;
  let runsFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chainsmith-export-dates-'));
    runsFile = join(dir, 'runs.jsonl');
    const runs = [
      run([10, 12], ['2024-06-03T09:00:00Z', '2024-06-04T09:00:00Z']),
      // Merged exactly at --merged-after: in.
      run([20, 21], ['2024-06-01T00:00:00.000Z', '2024-06-02T09:00:00Z']),
      // Its first PR is from before the window: the model may have seen it.
      run([30, 31], ['2024-05-31T23:59:59Z', '2024-06-02T09:00:00Z']),
      // Merged exactly at --merged-before: out.
      run([40, 41], ['2024-06-20T09:00:00Z', '2024-07-01T00:00:00Z']),
      // Recorded before runs carried merge dates.
      run([50, 51]),
    ];
    await writeFile(runsFile, runs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  });

  test('only runs whose every PR was merged in the window are exported, and the manifest records the window', async () => {
    const out = join(dir, 'held-out');
    const r = await cli(
      ['export', '--runs', runsFile, '--out', out, '--merged-after', '2024-06-01', '--merged-before', '2024-07-01'],
      { CHAINSMITH_HOME: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('runs: 2 (accepted 2, rejected 0)');
    expect(r.stdout).toContain(
      'dates: PRs merged from 2024-06-01T00:00:00.000Z before 2024-07-01T00:00:00.000Z; left out 2 run(s) with a PR merged outside, 1 without merge dates',
    );
    const manifest = ManifestSchema.parse(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')));
    expect(manifest.window).toEqual({
      mergedAfter: '2024-06-01T00:00:00.000Z',
      mergedBefore: '2024-07-01T00:00:00.000Z',
      runsOutside: 2,
      runsUndated: 1,
    });
    const samples = (await readFile(join(out, 'model-rollouts.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).metadata.prs);
    expect(samples.sort()).toEqual([
      [10, 12],
      [20, 21],
    ]);
  });

  test('a dated export never merges into an export of other dates; the earlier one is untouched', async () => {
    const out = join(dir, 'undated');
    expect((await cli(['export', '--runs', runsFile, '--out', out], { CHAINSMITH_HOME: dir })).code).toBe(0);
    const before = await hashes(out);
    const r = await cli(['export', '--runs', runsFile, '--out', out, '--merged-after', '2024-06-01'], {
      CHAINSMITH_HOME: dir,
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr: `error: ${out} holds an export of every merge date; write the one of PRs merged from 2024-06-01T00:00:00.000Z to another --out\n`,
    });
    expect(await hashes(out)).toEqual(before);
  });

  test('a bad date or an empty window is one error line, exit 2, before any run is read', async () => {
    const missing = join(dir, 'no-such-runs.jsonl');
    const cases: [string[], string][] = [
      [
        ['--merged-after', '2024-13-01'],
        '--merged-after must be a day (2024-06-01) or a time with its zone (2024-06-01T12:00:00Z), got "2024-13-01"',
      ],
      [
        ['--merged-after', '2024-08-01', '--merged-before', '2024-07-01'],
        '--merged-after 2024-08-01T00:00:00.000Z is not before --merged-before 2024-07-01T00:00:00.000Z: no PR can be merged in between',
      ],
    ];
    for (const [window, message] of cases) {
      const r = await cli(['export', '--runs', missing, '--out', join(dir, 'bad'), ...window], {
        CHAINSMITH_HOME: dir,
      });
      expect({ window, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
        window,
        code: 2,
        stderr: `error: ${message}\n`,
        stdout: '',
      });
    }
  });
});
