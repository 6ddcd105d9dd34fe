import Docker from 'dockerode';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ArtifactStore } from '../../src/artifacts/store';
import { TransientError } from '../../src/errors';
import { validateStages } from '../../src/judge/gold-yield';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';
import { testIf } from '../support/preconditions';

const run = promisify(execFile);
const docker = new Docker();
const notRoot = process.getuid?.() === 0 ? undefined : 'root, to mount a small tmpfs as the data directory';

/**
 * A stage that fails while the data directory's disk is all but full (a tmpfs of 64 MB, under the
 * 512 MB validation needs) may have failed for the disk: the run stops with a retryable error naming
 * the disk and the stage, and records nothing for it. With room, the same stage is recorded with its
 * own reason and the run goes on.
 */
testIf(notRoot)('a stage that fails on an all but full disk stops the run instead of recording a reason', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-disk-full-'));
  const small = join(dir, 'small');
  await mkdir(small);
  await run('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', small]);
  try {
    const repo = await ChainRepo.create(join(dir, 'calc'), { 'calc.py': 'def add(a, b):\n    return a + b\n' });
    const pr = await repo.pr(1, 'Add sub', { 'calc.py': 'def sub(a, b):\n    return a - b\n' });
    const good = repo.chain('gen/disk', [pr]);
    // Its base is missing from the clone: a failure of the stage's own, whatever the disk.
    const broken = { ...good, prs: [{ ...pr, baseSha: 'deadbeef'.repeat(5) }] };
    const deps = (dataDir: string) => ({
      docker,
      store: new ArtifactStore(join(dir, 'artifacts')),
      sandbox: { memoryMb: 512, pidsLimit: 128 },
      environments: testEnvironments(docker, {}, dataDir),
    });
    const seen: string[] = [];
    const full = validateStages(deps(join(small, 'data')), [broken], (r) => void seen.push(r.reason?.kind ?? ''));
    await expect(full).rejects.toThrow(TransientError);
    await expect(full).rejects.toThrow(
      /^the disk holding .*small\/data has \d+ MB free; validation stopped at gen\/disk PR #1/,
    );
    expect(seen).toEqual([]);
    const [roomy] = await validateStages(deps(join(dir, 'data')), [broken]);
    expect(roomy.reason?.kind).toBe('invalid-inputs');
  } finally {
    await run('umount', [small]);
    await rm(dir, { recursive: true, force: true });
  }
});
