import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { loadConfig, type Config } from '../../src/config';
import { baseImageTag } from '../../src/environments/images';
import { ModelClient } from '../../src/model/client';
import { setupFromConfig } from '../../src/setup-agent/from-config';

/**
 * The setup agent as `validate` builds it from its config (src/setup-agent/from-config.ts), on this
 * host's Docker engine, with its recipes and artifacts in a fresh folder and, where `baseUrl` is
 * given, the model at that (scripted) endpoint through the real client. Built images and fetched
 * dependencies are kept where a worker keeps them, so reruns reuse them.
 */
export async function testSetup(opts: { baseUrl?: string; attempts?: number; dir?: string; lines?: string[] } = {}) {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'chainsmith-setup-')));
  const loaded = loadConfig({ env: {}, cwd: dir });
  const config: Config = {
    ...loaded,
    dataDir: process.env.CHAINSMITH_HOME ?? join(homedir(), '.chainsmith'),
    model: {
      ...loaded.model,
      name: 'scripted',
      retries: 2,
      retryBaseMs: 1,
      ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
    },
    sandbox: { ...loaded.sandbox, memoryMb: 512, pidsLimit: 256 },
    environments: {
      ...loaded.environments,
      recipesDir: join(dir, 'recipes'),
      ...(opts.attempts ? { setupAttempts: opts.attempts } : {}),
    },
  };
  const docker = new Docker();
  const store = new ArtifactStore(join(dir, 'artifacts'));
  const model = opts.baseUrl
    ? new ModelClient({ baseUrl: opts.baseUrl, timeoutMs: 30_000, retry: { attempts: 2, baseDelayMs: 1 } })
    : undefined;
  const lines = opts.lines ?? [];
  const setup = setupFromConfig(config, {
    docker,
    store,
    baseImage: baseImageTag(),
    model,
    log: (line) => lines.push(line),
  });
  return {
    ...setup,
    dir,
    config,
    docker,
    store,
    lines,
    gold: { docker, store, sandbox: { memoryMb: 512, pidsLimit: 256 }, environments: setup.environments },
  };
}
