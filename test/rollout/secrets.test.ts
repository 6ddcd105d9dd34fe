import { MockActivityEnvironment } from '@temporalio/testing';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../../src/activities';
import { ArtifactStore } from '../../src/artifacts/store';
import { templateQueries } from '../../src/queries/template';
import { TrajectorySchema, type RoundResult } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { testConfig } from '../support/engines';
import { FakeOpenAI, type Reply } from '../support/fake-openai';
import { scriptedModel } from '../support/scripted-model';
import type { ContainerPool } from '../../src/stage/pool';
import { buildDeps } from '../../src/workers/deps';

const API_KEY = 'sk-worker-secret-4b1d9e7f2c6a8035';
const GITHUB_TOKEN = 'worker-github-token-0c9f3e1a7b5d';
/** Token-shaped text inside the repository itself (a test fixture, say). */
const FIXTURE_TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** A model that has somehow got hold of the worker's secrets and tries to use them. */
const leakyModel = scriptedModel({ agent: ({ step }) => leakyStep(step) });

function leakyStep(step: number): Reply {
  const bash = (command: string): Reply => ({ toolCalls: [{ name: 'bash', args: { command } }] });
  if (step === 0)
    return bash(`echo "${API_KEY} ${GITHUB_TOKEN}" > leak.txt; env; cat /proc/1/environ | tr '\\0' '\\n'`);
  if (step === 1) return bash('cat leak.txt fixture.txt');
  if (step === 2) return { content: `The key is ${API_KEY}.` };
  return { toolCalls: [{ name: 'submit', args: { summary: `used ${API_KEY}` } }] };
}

test('an API key and a token in the worker’s environment appear nowhere in the container, the prompts or the saved rollout', async () => {
  const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, GITHUB_TOKEN: process.env.GITHUB_TOKEN };
  process.env.OPENAI_API_KEY = API_KEY;
  process.env.GITHUB_TOKEN = GITHUB_TOKEN;
  const fake = new FakeOpenAI(leakyModel);
  let pool: ContainerPool | undefined;
  try {
    const config = testConfig({
      OPENAI_BASE_URL: await fake.start(),
      OPENAI_API_KEY: API_KEY,
      CHAINSMITH_MODEL: 'scripted',
    });
    const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-secrets-')), 'app'), {
      'fixture.txt': `token = "${FIXTURE_TOKEN}"\n`,
    });
    const chain = repo.chain('secrets/app', [await repo.pr(1, 'Describe the app', { 'README.md': '# app\n' })]);
    const store = ArtifactStore.fromConfig(config);
    const deps = buildDeps(config);
    pool = deps.pool;
    const activities = createActivities(deps);
    const runKey = `secrets-${Date.now()}/run`;
    const result = (await new MockActivityEnvironment().run(activities.rolloutRound, {
      runKey,
      chainRef: await store.putJson(chain),
      queriesRef: await store.putJson(templateQueries(chain)),
      stage: 0,
      round: 0,
      policy: 'model' as const,
    })) as RoundResult;

    expect(result.exitReason).toBe('submitted');
    const t = await store.getJson(result.trajectoryRef, TrajectorySchema);
    const outputs = t.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    // The secrets were taken out of the command before it ran: the file holds the placeholder.
    expect(outputs[1]).toContain('[REDACTED] [REDACTED]');
    expect(outputs[1]).toContain('token = "[REDACTED]"');
    expect(outputs[0]).not.toMatch(/OPENAI|GITHUB_TOKEN/);
    expect(await store.getText(result.stagePatchRef)).toContain('+[REDACTED] [REDACTED]');

    // The model's requests carried the key only in the Authorization header, never in a prompt.
    expect(fake.requests[0].authorization).toBe(`Bearer ${API_KEY}`);
    for (const { body } of fake.requests)
      expect(JSON.stringify(body.messages)).not.toMatch(new RegExp(`${API_KEY}|${GITHUB_TOKEN}|${FIXTURE_TOKEN}`));
    // Nothing saved anywhere under the data directory: checkpoints, trajectory, patches, test outputs.
    const files = filesUnder(config.dataDir);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toMatch(new RegExp(`${API_KEY}|${GITHUB_TOKEN}`));
    expect(await new MockActivityEnvironment().run(activities.cleanupRun, { runKey })).toBe(0);
  } finally {
    await pool?.drain();
    await fake.stop();
    process.env.OPENAI_API_KEY = saved.OPENAI_API_KEY;
    process.env.GITHUB_TOKEN = saved.GITHUB_TOKEN;
    if (saved.OPENAI_API_KEY === undefined) delete process.env.OPENAI_API_KEY;
    if (saved.GITHUB_TOKEN === undefined) delete process.env.GITHUB_TOKEN;
  }
});
