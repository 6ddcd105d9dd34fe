import Docker from 'dockerode';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryBackend } from '../../src/artifacts/backend';
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

/** A directory store whose writes of one key fail, as a worker killed just before it kept that piece would leave it. */
class KilledBefore extends DirectoryBackend {
  constructor(
    root: string,
    private readonly lost: RegExp,
  ) {
    super(root);
  }

  override async write(key: string, bytes: Buffer): Promise<void> {
    if (this.lost.test(key)) throw new Error(`killed before ${key} was written`);
    return super.write(key, bytes);
  }
}

/**
 * A worker killed while gold validation runs the PR's tests after the gold change: the run before it
 * had finished and must not run again. Simulated by a store that loses what the kill would have left
 * unsaved (the last run's result, and so the validation's); the work journal counts the test runs.
 * Once the validation is kept whole, its runs' pointers are removed.
 */
test('gold validation keeps each test run as it finishes: a retry after a kill runs only the one under way, and the runs are forgotten once the whole is kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gold-runs-'));
  const { chain } = await pythonChain(join(dir, 'shapes'), 'gen/shapes-kept');
  const deps = (artifacts: string, backend?: DirectoryBackend) => ({
    docker,
    store: new ArtifactStore(backend ?? artifacts),
    sandbox: { memoryMb: 512, pidsLimit: 128 },
    environments: testEnvironments(docker),
  });
  const journal = join(dir, 'work-journal.jsonl');
  const testsRun = async () =>
    (await readFile(journal, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as WorkRecord)
      .filter((r) => r.kind === 'test' && r.ev === 'start').length;
  const runPointers = async (artifacts: string) => {
    const keys = await readdir(join(artifacts, 'pointers', 'gold-runs')).catch(() => []);
    return (await Promise.all(keys.map((k) => readdir(join(artifacts, 'pointers', 'gold-runs', k))))).flat().sort();
  };
  process.env.CHAINSMITH_WORK_JOURNAL = journal;
  try {
    const calm = join(dir, 'calm');
    const first = await goldTestsFor(deps(calm), chain, 0);
    expect(first.status).toBe('verified');
    const runsFirst = await testsRun();
    // Before and after the gold change (and the base's own tests once more, where the run before missed some).
    expect(runsFirst).toBeGreaterThanOrEqual(2);
    expect(await readdir(join(calm, 'pointers', 'gold-tests'))).toHaveLength(1);
    expect(await runPointers(calm)).toEqual([]);

    // The kill came during the last run: neither it nor the validation's result was saved.
    const killed = join(dir, 'killed');
    const lost = new RegExp(`^pointers/gold-runs/[^/]+/${runsFirst - 1}$`);
    await expect(goldTestsFor(deps(killed, new KilledBefore(killed, lost)), chain, 0)).rejects.toThrow(/killed before/);
    expect(await runPointers(killed)).toEqual([...Array(runsFirst - 1).keys()].map(String));
    expect(await testsRun()).toBe(2 * runsFirst);

    const again = await goldTestsFor(deps(killed), chain, 0);
    expect(await testsRun()).toBe(2 * runsFirst + 1);
    expect(again).toEqual(first);
    expect(await runPointers(killed)).toEqual([]);
  } finally {
    delete process.env.CHAINSMITH_WORK_JOURNAL;
  }
}, 300_000);
