import Docker from 'dockerode';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Environments } from '../../src/environments/builder';
import { baseImageTag } from '../../src/environments/images';
import { StageError } from '../../src/errors';
import { validateStages } from '../../src/judge/gold-yield';
import { ArtifactStore } from '../../src/artifacts/store';
import { BUILD_LABEL } from '../../src/environments/builder';
import { ChainRepo } from '../support/chain-repo';
import { ownSandboxes } from '../support/containers';

const docker = new Docker();

test('dependencies that do not resolve fail the stage with the resolver’s reason, keep no half cache and leave no container', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-baddeps-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'requirements.txt': 'chainsmith-no-such-package-zz9==1.0\n',
    'tests/test_a.py': 'def test_a():\n    assert True\n',
  });
  const chain = repo.chain('gen/baddeps', [
    await repo.pr(1, 'A change', { 'tests/test_a.py': 'def test_a():\n    assert 1 + 1 == 2\n' }),
  ]);
  const dataDir = join(dir, 'data');
  const environments = new Environments(docker, {
    baseImage: baseImageTag(),
    dataDir,
    overrides: {},
    network: 'none',
    timeoutSeconds: 300,
    memoryMb: 512,
    pidsLimit: 128,
    cpus: 1,
    defaultTestCommand: 'python3 -m pytest -q',
    log: () => undefined,
  });
  const attempt = environments.forStage(chain, 0);
  await expect(attempt).rejects.toThrow(StageError);
  await expect(attempt).rejects.toThrow(
    /the dependencies of gen\/baddeps at [0-9a-f]{12} cannot be fetched: uv cannot resolve the Python requirements as of 2023-01-0\d:\n(.|\n)*chainsmith-no-such-package-zz9/,
  );
  // Nothing half-fetched is kept for a later build to trust, and no build container was started.
  expect(readdirSync(join(dataDir, 'deps'))).toEqual([]);
  expect(await ownSandboxes(docker, BUILD_LABEL)).toEqual([]);

  // A yield over the chain records the stage as invalid with the reason, and the clone is as it was.
  const records = await validateStages(
    {
      docker,
      store: new ArtifactStore(join(dir, 'artifacts')),
      sandbox: { memoryMb: 512, pidsLimit: 128 },
      environments,
    },
    [chain],
  );
  expect(records[0]).toMatchObject({
    status: 'invalid',
    problem: expect.stringContaining('chainsmith-no-such-package-zz9'),
  });
  expect(existsSync(join(repo.path, 'requirements.txt'))).toBe(true);
});
