import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportDataset } from '../../src/dataset/write-dataset';
import { cli } from '../support/cli';
import { acceptedRun, rejectedRun } from './runs';

/** Every file of a directory with its hash: what "nothing lost" compares. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(
    await Promise.all(
      files.map(
        async (f) =>
          [
            f,
            createHash('sha256')
              .update(await readFile(join(dir, f)))
              .digest('hex'),
          ] as const,
      ),
    ),
  );
}

describe('chainsmith export through the built CLI', () => {
  let dir: string;
  let out: string;
  let before: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chainsmith-export-cli-'));
    out = join(dir, 'export');
    const runs = join(dir, 'runs.jsonl');
    await writeFile(runs, [acceptedRun(), rejectedRun()].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await cli(['export', '--runs', runs, '--out', out], { CHAINSMITH_HOME: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('runs: 2 (accepted 1, rejected 1)');
    expect(r.stdout).toContain(
      'left out example/cache#20-21 (model): stage 1 (PR #20) was rejected after 4 rounds (last score 0.40)',
    );
    expect(r.stdout).toMatch(
      /model: 1 sample\(s\), tokens mean [\d,]+ \(\d+\.\d% of the paper's 85,000\), tool calls mean 12\.0 \(paper 116\); tokenizer o200k_base/,
    );
    expect(r.stdout).toContain(
      'queries: leak rate 0.0% (0 of 6 over the limit as kept; 2 leaked when first written; 2 regeneration(s))',
    );
    before = await snapshot(out);
  });

  test('an empty runs file: a clear error, and the earlier export is untouched', async () => {
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '\n');
    const r = await cli(['export', '--runs', empty, '--out', out], { CHAINSMITH_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: ${empty} holds no runs`);
    expect(await snapshot(out)).toEqual(before);
  });

  test('a run whose trajectory fails its schema names the line and field; nothing already exported is lost', async () => {
    const broken = acceptedRun({ workflowId: 'w-broken' }) as unknown as {
      trajectory: { messages: { role: string }[] };
    };
    broken.trajectory.messages[3].role = 'robot';
    const file = join(dir, 'broken.jsonl');
    await writeFile(file, `${JSON.stringify(rejectedRun())}\n${JSON.stringify(broken)}\n`);
    const r = await cli(['export', '--runs', file, '--out', out], { CHAINSMITH_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^error: ${file}:2: not a chain run: trajectory\\.messages\\.3(\\.role)?: `),
    );
    expect(await snapshot(out)).toEqual(before);
  });

  test('an earlier export that no longer parses is not overwritten', async () => {
    const copy = join(dir, 'copy');
    await exportDataset([acceptedRun()], copy);
    await writeFile(join(copy, 'model-rollouts.jsonl'), '{"id": "truncated\n');
    const damaged = await snapshot(copy);
    const r = await cli(['export', '--runs', join(dir, 'runs.jsonl'), '--out', copy], { CHAINSMITH_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: ${join(copy, 'model-rollouts.jsonl')}:1: not valid JSON`);
    expect(await snapshot(copy)).toEqual(damaged);
  });

  test('an empty chains file is refused by `start` before anything runs', async () => {
    const chains = join(dir, 'chains.jsonl');
    await writeFile(chains, '');
    const r = await cli(['start', '--chains', chains], { CHAINSMITH_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: ${chains} holds no chains`);
  });
});
