import Docker from 'dockerode';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { goldTestsFor } from '../../src/judge/gold-validation';
import type { WorkRecord } from '../../src/work-journal';
import { ownSandboxes } from '../support/containers';
import { testEnvironments } from '../support/environments';
import { pythonChain } from '../support/python-chain';

const docker = new Docker();

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/**
 * A worker killed while gold validation runs the PR's tests after the gold change: the run before it
 * had finished and must not run again. Simulated by taking away what the kill would have left unsaved
 * (the run under way and the validation's result); the work journal counts the test runs.
 */
test('gold validation keeps each test run as it finishes: a retry after a kill runs only the one under way', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gold-runs-'));
  const { chain } = await pythonChain(join(dir, 'shapes'), 'gen/shapes-kept');
  const artifacts = join(dir, 'artifacts');
  const deps = { docker, store: new ArtifactStore(artifacts), sandbox: { memoryMb: 512, pidsLimit: 128 }, environments: testEnvironments(docker) };
  const journal = join(dir, 'work-journal.jsonl');
  const testsRun = async () => (await readFile(journal, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as WorkRecord).filter((r) => r.kind === 'test' && r.ev === 'start').length;
  process.env.CHAINSMITH_WORK_JOURNAL = journal;
  try {
    const first = await goldTestsFor(deps, chain, 0);
    expect(first.status).toBe('verified');
    const runsFirst = await testsRun();
    // Before and after the gold change (and the base's own tests once more, where the run before missed some).
    expect(runsFirst).toBeGreaterThanOrEqual(2);

    const [key] = await readdir(join(artifacts, 'pointers', 'gold-runs'));
    const kept = await readdir(join(artifacts, 'pointers', 'gold-runs', key));
    expect(kept.sort()).toEqual([...Array(runsFirst).keys()].map(String));
    // The kill came during the last run: neither it nor the validation's result was saved.
    await rm(join(artifacts, 'pointers', 'gold-tests'), { recursive: true });
    await rm(join(artifacts, 'pointers', 'gold-runs', key, String(runsFirst - 1)));

    const again = await goldTestsFor(deps, chain, 0);
    expect(await testsRun()).toBe(runsFirst + 1);
    expect(again).toEqual(first);
  } finally {
    delete process.env.CHAINSMITH_WORK_JOURNAL;
  }
}, 300_000);
