import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Policy } from '../../src/agent/policy';
import { ArtifactStore } from '../../src/artifacts/store';
import { StageError } from '../../src/errors';
import { templateQueries } from '../../src/queries/template';
import { runRound, type RoundDeps } from '../../src/rollout/round';
import { roundContainers } from '../../src/stage/round-container';
import { TrajectorySchema, type Chain } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';

const docker = new Docker();
let chain: Chain;
let store: ArtifactStore;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-first-call-'));
  const repo = await ChainRepo.create(join(dir, 'app'), { 'README.md': '# app\n' });
  chain = repo.chain('first-call/app', [await repo.pr(1, 'Say more', { 'README.md': '# app\n\nmore\n' })]);
  store = new ArtifactStore(join(dir, 'store'));
});

function deps(policy: Policy): RoundDeps {
  return {
    docker,
    store,
    sandbox: { memoryMb: 512, pidsLimit: 128 },
    environments: testEnvironments(docker),
    limits: { maxSteps: 5, commandTimeoutSeconds: 30, maxOutputChars: 8_000 },
    policyFor: () => policy,
    host: hostname(),
    heartbeat: () => undefined,
  };
}

/** Resolves once the run has a round container, or after `ms` with false. */
async function containerAppears(runKey: string, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    if ((await roundContainers(docker, { runKey })).length) return true;
  }
  return false;
}

const input = async (runKey: string) => ({
  runKey,
  chainRef: await store.putJson(chain),
  queriesRef: await store.putJson(templateQueries(chain)),
  stage: 0,
  round: 0,
});

test("a stage without a carry asks for the agent's first step while its sandbox opens, and the step runs in that sandbox", async () => {
  const runKey = `first-call-${Date.now()}/run`;
  let atFirstCall: { before: number; appeared: boolean } | undefined;
  const policy: Policy = {
    kind: 'model',
    async next(messages, { step, scaffold }) {
      // The call comes before the container is even created; the container then appears while it is in flight.
      if (step === 0)
        atFirstCall = {
          before: (await roundContainers(docker, { runKey })).length,
          appeared: await containerAppears(runKey, 20_000),
        };
      const action = step === 0 ? { run: 'cat README.md', why: 'Look.' } : { submit: 'looked' };
      return {
        message: scaffold.reply(action, `call-${messages.length}`),
        usage: { promptTokens: 1, completionTokens: 1 },
      };
    },
  };
  const result = await runRound(await input(runKey), deps(policy));
  expect(atFirstCall).toEqual({ before: 0, appeared: true });
  expect(result.carry).toEqual({ fromStages: [], goldInBase: false, conflicts: [] });
  const t = await store.getJson(result.trajectoryRef, TrajectorySchema);
  expect(JSON.stringify(t.messages)).toContain('# app');
  expect(await roundContainers(docker, { runKey })).toHaveLength(0);
});

test('a sandbox that cannot be set up fails the round after the first call in flight, and leaves no container', async () => {
  const runKey = `first-call-bad-${Date.now()}/run`;
  const calls: number[] = [];
  const policy: Policy = {
    kind: 'model',
    async next(messages, { step, scaffold }) {
      calls.push(step);
      await new Promise((r) => setTimeout(r, 2_000));
      return {
        message: scaffold.reply({ run: 'true', why: 'Wait.' }, `call-${messages.length}`),
        usage: { promptTokens: 1, completionTokens: 1 },
      };
    },
  };
  // Earlier progress that does not apply to the stage's base: the open fails while the first call is in flight.
  const progressPatchRef = await store.put(
    'diff --git a/nothing.txt b/nothing.txt\n--- a/nothing.txt\n+++ b/nothing.txt\n@@ -1 +1 @@\n-x\n+y\n',
  );
  await expect(runRound({ ...(await input(runKey)), progressPatchRef }, deps(policy))).rejects.toThrow(StageError);
  expect(calls).toEqual([0]);
  expect(await roundContainers(docker, { runKey })).toHaveLength(0);
});
