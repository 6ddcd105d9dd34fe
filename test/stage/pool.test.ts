import Docker from 'dockerode';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths';
import { CARRY_TAG } from '../../src/stage/carryover';
import { HOST_LABEL, KEY_LABEL, RUN_KEY_LABEL, CONTAINER_LABEL } from '../../src/container/docker-container';
import { OWNER_LABEL, removeOrphans } from '../../src/container/orphans';
import { POOL_LABEL, PREPARED_LABEL, ContainerPool } from '../../src/stage/pool';
import { removeRoundContainers, roundKey, roundName } from '../../src/stage/round-container';
import { StageSandbox } from '../../src/stage/stage-sandbox';
import type { Chain } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';

const docker = new Docker();
const environments = testEnvironments(docker);
const limits = { memoryMb: 256, pidsLimit: 64, cpus: 0.5 };
let chain: Chain;
let image: string;

beforeAll(async () => {
  const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-pool-')), 'app'), {
    'README.md': '# app\n',
  });
  const first = await repo.pr(1, 'Say more', { 'README.md': '# app\n\nmore\n' });
  const second = await repo.pr(2, 'Say even more', { 'NOTES.md': 'notes\n' });
  chain = repo.chain('pool/app', [first, second]);
  image = (await environments.forStage(chain, 1)).image;
});

/** A host identity of its own per test: the containers it labels are this test's alone. */
const testHost = () => `pool-test-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
const onHost = (host: string, ...labels: string[]) =>
  docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, `${HOST_LABEL}=${host}`, ...labels] } });
const spec = () => ({ ...limits, image, mirrorPath: chain.repo.path });

/** A stage of the chain for a rollout round, with the gold carry: the checkout and carry a round does. */
const openRound = (
  pool: ContainerPool | undefined,
  host: string,
  runKey: string,
  stage: number,
  key = roundKey(runKey, stage, 0),
) =>
  StageSandbox.open({ docker, environments, sandbox: limits, pool }, chain, stage, {
    role: { kind: 'rollout', runKey, key, host },
    carryPatch: '',
  });
const openStage = (pool: ContainerPool, host: string, key: string) => openRound(pool, host, `pool-${key}/run`, 1, key);

test('the pool keeps a kind warm by demand (none for its first round, then one more a round up to its size); a warm container is limited and network-less as a new one and set up at its stage; drain removes them', async () => {
  const host = testHost();
  const pool = new ContainerPool(docker, { size: 2, host });
  try {
    // Nothing warm yet: the first stage of this kind starts its own container, labelled for its round.
    const cold = await openStage(pool, host, `cold-${host}`);
    expect(cold.sandbox.container.id).toBeDefined();
    expect((await cold.sandbox.container.inspect()).Config.Labels[KEY_LABEL]).toBe(`cold-${host}`);
    await cold.destroy();
    // One round of a kind is no demand: nothing is started for nobody.
    await pool.filled(spec());
    expect(await onHost(host, POOL_LABEL)).toHaveLength(0);

    // A second round of the kind (cold too) is: one is kept warm.
    const second = await openStage(pool, host, `second-${host}`);
    expect(second.source).toBe('new');
    await second.destroy();
    await pool.filled(spec());
    const warm = await onHost(host, POOL_LABEL);
    expect(warm.map((c) => c.State)).toEqual(['running']);
    for (const c of warm) {
      const { HostConfig } = await docker.getContainer(c.Id).inspect();
      expect(HostConfig).toMatchObject({
        NetworkMode: 'none',
        CapDrop: ['ALL'],
        Memory: 256 * 1024 * 1024,
        PidsLimit: 64,
        NanoCpus: 0.5e9,
      });
      expect(HostConfig.SecurityOpt).toContain('no-new-privileges');
    }

    // A refill while the kind is as warm as asked (a round set up beside it) starts nothing and stops no later one.
    pool.refill(spec());
    const stage = await openStage(pool, host, `warm-${host}`);
    try {
      expect(warm.map((c) => c.Id)).toContain(stage.sandbox.container.id);
      expect(stage.source).toBe('warm');
      // Renamed for its round: the chain's cleanup finds it by that name, as it finds one started for the round.
      expect((await stage.sandbox.container.inspect()).Name).toBe(
        `/${roundName(`pool-warm-${host}/run`, host, `warm-${host}`)}`,
      );
      // At stage 2's base, with the (gold) carry committed on top of it.
      const r = await stage.exec(`git rev-parse ${CARRY_TAG}^ && cat NOTES.md README.md`, {
        timeoutSeconds: 30,
        maxOutputChars: 2000,
      });
      expect(r.output.split('\n')[0]).toBe(chain.prs[1].baseSha);
      expect(r.output).toContain('more');
      // A third round: the kind is kept at the pool's size, two warm beside the one in use.
      await pool.filled(spec());
      expect(pool.idle(spec())).toBe(2);
      expect(await onHost(host, POOL_LABEL)).toHaveLength(3);
    } finally {
      await stage.destroy();
    }
    expect(await pool.drain()).toBe(2);
    expect(await onHost(host)).toHaveLength(0);
    // A drained pool hands out nothing and starts nothing.
    expect(await pool.take(spec(), `after-${host}`)).toBeUndefined();
  } finally {
    await pool.drain();
    await Promise.all((await onHost(host)).map((c) => docker.getContainer(c.Id).remove({ force: true })));
  }
}, 120_000);

test('size 0 keeps nothing warm: every stage starts its own container', async () => {
  const host = testHost();
  const pool = new ContainerPool(docker, { size: 0, host });
  const stage = await openStage(pool, host, `off-${host}`);
  try {
    await pool.filled(spec());
    expect((await stage.sandbox.container.inspect()).Config.Labels[KEY_LABEL]).toBe(`off-${host}`);
    expect(await onHost(host, POOL_LABEL)).toHaveLength(0);
  } finally {
    await stage.destroy();
  }
  expect(await onHost(host)).toHaveLength(0);
}, 60_000);

test("opening stage 1 prepares stage 2's round in the background; stage 2 then takes it and only applies the carry", async () => {
  const host = testHost();
  const pool = new ContainerPool(docker, { size: 1, host });
  const runKey = `pool-prepared-${host}/run`;
  const next = roundName(runKey, host, roundKey(runKey, 1, 0));
  try {
    const first = await openRound(pool, host, runKey, 0);
    expect(first.next).toBe(next);
    await first.destroy();
    expect(await pool.preparedFor(next)).toBe(true);
    const [prepared] = await docker.listContainers({ all: true, filters: { name: [`^/${next}$`] } });
    expect(prepared.Labels).toMatchObject({ [PREPARED_LABEL]: '1', [HOST_LABEL]: host });

    const second = await openRound(pool, host, runKey, 1);
    try {
      expect([second.source, second.sandbox.container.id]).toEqual(['prepared', prepared.Id]);
      // The same starting state as a stage set up from scratch: the base, the carry on top, the carry's findings.
      const unprepared = await openRound(undefined, host, `${runKey}-cold`, 1);
      try {
        const state = (s: StageSandbox) =>
          s.exec(`git rev-parse ${CARRY_TAG}^ ${CARRY_TAG}^{tree} && git status --short`, {
            timeoutSeconds: 30,
            maxOutputChars: 2000,
          });
        expect((await state(second)).output.split('\n')[0]).toBe(chain.prs[1].baseSha);
        expect(await state(second)).toEqual(await state(unprepared));
        expect(second.carry).toEqual(unprepared.carry);
      } finally {
        await unprepared.destroy();
      }
    } finally {
      await second.destroy();
    }

    // Bounded: with `size` prepared containers, none of them stale, no other is prepared; drain removes them.
    const spec0 = async () => spec();
    const ready = (name: string) => pool.prepare(name, spec0, async () => undefined);
    ready(`chainsmith-bound-a-${process.pid}`);
    ready(`chainsmith-bound-b-${process.pid}`);
    expect(await pool.preparedFor(`chainsmith-bound-a-${process.pid}`)).toBe(true);
    expect(await pool.preparedFor(`chainsmith-bound-b-${process.pid}`)).toBe(false);
    expect((await onHost(host, PREPARED_LABEL)).map((c) => c.Names[0])).toEqual([`/chainsmith-bound-a-${process.pid}`]);
    // Dropped (a cancelled round's next stage): gone, and its round starts its own.
    expect(await pool.dropPrepared(`chainsmith-bound-a-${process.pid}`)).toBe(1);
    expect(await onHost(host, PREPARED_LABEL)).toHaveLength(0);
    ready(`chainsmith-bound-c-${process.pid}`);
    expect(await pool.preparedFor(`chainsmith-bound-c-${process.pid}`)).toBe(true);
    expect(await pool.drain()).toBeGreaterThanOrEqual(1);
    expect(await onHost(host, PREPARED_LABEL)).toHaveLength(0);
  } finally {
    await pool.drain();
    await Promise.all((await onHost(host)).map((c) => docker.getContainer(c.Id).remove({ force: true })));
  }
}, 120_000);

test("a round's container is found again by its name: a second open of the round reuses it", async () => {
  const host = testHost();
  const runKey = `pool-again-${host}/run`;
  const first = await openRound(undefined, host, runKey, 1);
  try {
    const again = await openRound(undefined, host, runKey, 1);
    expect([again.source, again.sandbox.container.id]).toEqual(['reused', first.sandbox.container.id]);
  } finally {
    await first.destroy();
  }
  expect(await onHost(host)).toHaveLength(0);
}, 60_000);

test("a run's cleanup (cleanupRun) finds by name the pooled container its round took and the one prepared for its next stage, and leaves another run's", async () => {
  const host = testHost();
  const pool = new ContainerPool(docker, { size: 2, host });
  const runKey = `pool-cleanup-${host}/run`;
  try {
    const other = await openRound(pool, host, `pool-other-${host}/run`, 1);
    // A second round of the kind: from then on the pool keeps it warm.
    await (await openRound(pool, host, `pool-second-${host}/run`, 1)).destroy();
    await pool.filled(spec());
    // Left running, as a round is when its chain is cancelled under a worker that cannot end it.
    const round = await openRound(pool, host, runKey, 0);
    expect(round.source).toBe('warm');
    expect(await pool.preparedFor(round.next!)).toBe(true);
    const labels = (await round.sandbox.container.inspect()).Config.Labels;
    expect([labels[POOL_LABEL], labels[RUN_KEY_LABEL], labels[KEY_LABEL]]).toEqual(['1', undefined, undefined]);

    expect(await removeRoundContainers(docker, { runKey, host: `${host}-elsewhere` }, pool)).toBe(0);
    expect(await removeRoundContainers(docker, { runKey, host }, pool)).toBe(2);
    // The pool let go of the prepared one too: it neither hands it out nor counts it against its bound.
    expect(await pool.preparedFor(round.next!)).toBe(false);
    expect(await round.sandbox.container.inspect().catch((err) => err.statusCode)).toBe(404);
    expect((await other.sandbox.container.inspect()).State.Running).toBe(true);
    await other.destroy();
  } finally {
    await pool.drain();
    await Promise.all((await onHost(host)).map((c) => docker.getContainer(c.Id).remove({ force: true })));
  }
}, 120_000);

/**
 * A worker process in miniature (the built pool, as `chainsmith worker` runs it): three rounds of a kind
 * ask for a warm container (none is warm yet), which fills its pool; it says so, then waits to be killed.
 */
const WORKER = `
const Docker = require('dockerode');
const { ContainerPool } = require(process.argv[1]);
const pool = new ContainerPool(new Docker(), { size: 2, host: process.env.POOL_HOST });
const spec = JSON.parse(process.env.POOL_SPEC);
Promise.all([1, 2, 3].map((i) => pool.take(spec, 'unused-' + i)))
  .then(() => (pool.refill(spec), pool.filled(spec)))
  .then(() => console.log('warm ' + pool.idle(spec)));
setInterval(() => undefined, 1000);
`;

test("a SIGKILLed worker's warm containers are left running, and the sweep of dead workers' containers removes them", async () => {
  const host = testHost();
  const child = spawn('node', ['-e', WORKER, join(packageRoot(), 'dist/src/stage/pool.js')], {
    cwd: packageRoot(),
    env: { ...process.env, POOL_HOST: host, POOL_SPEC: JSON.stringify(spec()) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const said = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d) => resolve(String(d).trim()));
      child.on('exit', (code) => reject(new Error(`the pool process exited (${code}) before its pool was warm`)));
    });
    expect(said).toBe('warm 2');
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const left = await onHost(host, POOL_LABEL);
    expect(left.map((c) => [c.State, c.Labels[OWNER_LABEL].split(':')[1]])).toEqual([
      ['running', String(child.pid)],
      ['running', String(child.pid)],
    ]);
    // Only its own host identity's pooled containers: another's are left for that one's worker. (Its count
    // is not asserted: one-off orphans of other test files' killed processes on this engine count in it.)
    await removeOrphans(docker, `${host}-other`);
    expect(await onHost(host)).toHaveLength(2);
    expect(await removeOrphans(docker, host)).toBeGreaterThanOrEqual(2);
    expect(await onHost(host)).toHaveLength(0);
  } finally {
    child.kill('SIGKILL');
    await Promise.all((await onHost(host)).map((c) => docker.getContainer(c.Id).remove({ force: true })));
  }
}, 60_000);
