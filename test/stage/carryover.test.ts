import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelPolicy } from '../../src/agent/model-policy';
import { ArtifactStore } from '../../src/artifacts/store';
import { StageError } from '../../src/errors';
import { ModelClient } from '../../src/model/client';
import { templateQueries } from '../../src/queries/template';
import { runRound } from '../../src/rollout/round';
import { roundContainers } from '../../src/stage/round-container';
import { CARRY_TAG } from '../../src/stage/carryover';
import { DockerContainer, CONTAINER_LABEL } from '../../src/container/docker-container';
import { setUpStage } from '../../src/stage/setup';
import { TrajectorySchema, type Chain, type Message } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';
import { FakeOpenAI } from '../support/fake-openai';
import { scriptedModel } from '../support/scripted-model';

const LABEL = { 'chainsmith.test': 'carryover' };
const ADD = 'def add(a, b):\n    return a + b\n';
const GOLD_MUL = '\n\ndef mul(a, b):\n    return a * b\n';
const UPSTREAM_MUL = '\n\ndef mul(a, b):\n    return a * b  # upstream fast path\n';
const AGENT_MUL =
  '\n\ndef mul(a, b):\n    result = 0\n    for _ in range(b):\n        result += a\n    return result\n';

const docker = new Docker();
const environments = testEnvironments(docker);
let chain: Chain; // #1 → #2: upstream changed another file in between
let conflicting: Chain; // #1 → #3: upstream changed the lines the agent rewrote
let carryDone: string; // the agent finished stage 1 its own way
let carryUnfinished: string; // the agent left stage 1 with a note and no function

beforeAll(async () => {
  const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-carry-')), 'calc'), {
    'calc.py': ADD,
    'other.py': 'X = 1\n',
    'notes.txt': 'notes\n',
  });
  const pr1 = await repo.pr(1, 'Add multiplication', { 'calc.py': ADD + GOLD_MUL });
  await repo.commit('Bump X', { 'other.py': 'X = 2\n' });
  const pr2 = await repo.pr(2, 'Write more notes', { 'notes.txt': 'notes\nmore\n' });
  await repo.checkout(pr1.mergeSha);
  await repo.commit('Speed up mul', { 'calc.py': ADD + UPSTREAM_MUL });
  const pr3 = await repo.pr(3, 'Write other notes', { 'notes.txt': 'notes\nother\n' });
  // The agent's trees after stage 1 start from stage 1's base, as its sandbox did.
  await repo.checkout(pr1.baseSha);
  const done = await repo.commit('agent', {
    'calc.py': ADD + AGENT_MUL,
    'agent_notes.md': 'multiplication by repeated addition\n',
  });
  await repo.checkout(pr1.baseSha);
  const unfinished = await repo.commit('agent, unfinished', { 'agent_notes.md': 'TODO: multiplication\n' });
  // What a round stores as Δτ(1): the agent's tree against the gold tree after stage 1.
  carryDone = await repo.diff(pr1.mergeSha, done);
  carryUnfinished = await repo.diff(pr1.mergeSha, unfinished);
  chain = repo.chain('carry/calc', [pr1, pr2]);
  conflicting = repo.chain('carry/calc', [pr1, pr3]);
});

afterAll(async () => {
  const left = await docker.listContainers({
    all: true,
    filters: { label: [CONTAINER_LABEL, 'chainsmith.test=carryover'] },
  });
  expect(left).toHaveLength(0);
});

async function withSandbox<T>(c: Chain, stage: number, fn: (s: DockerContainer) => Promise<T>): Promise<T> {
  const env = await environments.forStage(c, stage);
  const sandbox = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: c.repo.path,
    labels: LABEL,
    memoryMb: 512,
    pidsLimit: 128,
  });
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.destroy();
  }
}

const cat = async (s: DockerContainer, file: string) =>
  (await s.exec(`cat ${file}`, { timeoutSeconds: 10, maxOutputChars: 10_000 })).output;

test('clean carry: stage 2 starts from its base with the agent’s stage-1 work instead of the gold one, upstream changes kept', async () => {
  await withSandbox(chain, 1, async (s) => {
    const carry = await setUpStage(s, chain, 1, { carryPatch: carryDone, progress: false });
    expect(carry).toEqual({ fromStages: [1], goldInBase: true, conflicts: [] });
    expect(await cat(s, 'calc.py')).toBe(ADD + AGENT_MUL);
    expect(await cat(s, 'agent_notes.md')).toBe('multiplication by repeated addition\n');
    expect(await cat(s, 'other.py')).toBe('X = 2\n'); // upstream, between the stages
    expect(await cat(s, 'notes.txt')).toBe('notes\n'); // stage 2's own change is the task, not given
    // The starting state is tagged and clean: the agent's stage-2 patch is measured from here.
    expect(
      (await s.exec(`git status --short && git diff ${CARRY_TAG}`, { timeoutSeconds: 10, maxOutputChars: 1000 }))
        .output,
    ).toBe('');
  });
});

test('carry after an unfinished stage: the gold stage-1 change is taken out and only the agent’s partial work comes along', async () => {
  await withSandbox(chain, 1, async (s) => {
    const carry = await setUpStage(s, chain, 1, { carryPatch: carryUnfinished, progress: false });
    expect(carry.conflicts).toEqual([]);
    expect(await cat(s, 'calc.py')).toBe(ADD);
    expect(await cat(s, 'agent_notes.md')).toBe('TODO: multiplication\n');
    expect(await cat(s, 'other.py')).toBe('X = 2\n');
  });
});

test('conflicting carry: both sides kept between markers, the policy recorded on the round, the agent told and shown the markers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-carry-store-'));
  const store = new ArtifactStore(dir);
  const runKey = `carry-test-${Date.now()}`;
  const fake = new FakeOpenAI(
    scriptedModel({
      agent: ({ step }) => ({
        toolCalls: [
          step === 0
            ? { name: 'view_file', args: { path: 'calc.py' } }
            : { name: 'submit', args: { summary: 'looked' } },
        ],
      }),
    }),
  );
  const policy = new ModelPolicy(
    new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } }),
    'scripted',
  );
  const result = await runRound(
    {
      runKey,
      chainRef: await store.putJson(conflicting),
      queriesRef: await store.putJson(templateQueries(conflicting)),
      stage: 1,
      round: 0,
      carryPatchRef: await store.put(carryDone),
    },
    {
      docker,
      store,
      sandbox: { memoryMb: 512, pidsLimit: 128 },
      environments,
      limits: { maxSteps: 5, commandTimeoutSeconds: 30, maxOutputChars: 8_000 },
      policyFor: () => policy,
      host: hostname(),
      heartbeat: () => undefined,
    },
  );
  await fake.stop();
  // The round told the model where it was: stage 2 (index 1), round 0, steps 0 and 1.
  expect(fake.requests.map((r) => r.marker)).toEqual(
    [0, 1].map((step) => ({ caller: 'agent', stage: 1, round: 0, step })),
  );
  expect(result.carry).toEqual({
    fromStages: [1],
    goldInBase: true,
    conflicts: ['calc.py'],
    policy: 'conflict-markers',
  });
  const t = await store.getJson(result.trajectoryRef, TrajectorySchema);
  const task = t.messages.find((m: Message) => m.role === 'user' && m.content.includes('Task 2 of 2'))!;
  expect(task.content).toContain('your earlier changes conflicted with upstream changes in calc.py');
  const seen = t.messages.find((m: Message) => m.role === 'tool')!.content!;
  for (const line of ['<<<<<<<', 'result += a', '# upstream fast path', '>>>>>>>']) expect(seen).toContain(line);
  // The rest of the agent's work came along untouched.
  const carried = await store.getText(result.cumulativePatchRef);
  expect(carried).toContain('+multiplication by repeated addition');
  expect(await roundContainers(docker, { runKey })).toHaveLength(0);
});

test('a carried patch that does not apply is a clear error on that stage', async () => {
  await withSandbox(chain, 1, async (s) => {
    const broken = carryDone.replace('-    return a * b', '-    return a ** b');
    expect(broken).not.toBe(carryDone);
    await expect(setUpStage(s, chain, 1, { carryPatch: broken, progress: false })).rejects.toThrow(StageError);
    await expect(setUpStage(s, chain, 1, { carryPatch: broken, progress: false })).rejects.toThrow(
      /stage 2 \(PR #2\) could not be set up:\n.*the carried patch does not apply to the merge of PR #1/s,
    );
  });
});
