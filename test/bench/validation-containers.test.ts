import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateRun } from '../../bench/validation/child';
import { OWNER_LABEL } from '../../src/container/orphans';
import { BUILD_LABEL } from '../../src/environments/builder';
import { baseImageTag } from '../../src/environments/images';

/**
 * A stand-in for `chainsmith validate`: it starts containers owned by its own process, as validate's
 * gold sandboxes and builds are, one after another, each removed as it ends. Four do nothing (`true`:
 * gone within a fraction of a second, as today's code's sandbox of a stage with no test is within about
 * one), one spends some CPU and then idles, one is a build whose image is never made.
 */
const fakeValidate = (image: string) => `
const Docker = require(${JSON.stringify(require.resolve('dockerode'))});
const { hostname } = require('node:os');
const { writeFileSync } = require('node:fs');
const docker = new Docker();
const owner = { [${JSON.stringify(OWNER_LABEL)}]: hostname() + ':' + process.pid, 'chainsmith.test': 'validation-containers' };
async function once(script, labels = {}) {
  const c = await docker.createContainer({ Image: ${JSON.stringify(image)}, Cmd: ['sh', '-c', script], Labels: { ...owner, ...labels }, HostConfig: { NetworkMode: 'none' } });
  await c.start();
  await c.wait();
  await c.remove();
}
(async () => {
  for (let i = 0; i < 4; i++) await once('true');
  await once('i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 1');
  await once('true', { [${JSON.stringify(BUILD_LABEL)}]: 'chainsmith-env:validation-containers-test' });
  writeFileSync(process.argv[process.argv.indexOf('--out') + 1], '');
})().catch((err) => { console.error(err); process.exit(1); });
`;

test('every container the validate run owned is counted, however briefly it lived, and the CPU of one that worked is read', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-validation-containers-'));
  try {
    const cli = join(dir, 'fake-validate.js');
    await writeFile(cli, fakeValidate(baseImageTag()));
    await writeFile(join(dir, 'chains.jsonl'), '');
    const r = await validateRun(cli, join(dir, 'chains.jsonl'), join(dir, 'out.jsonl'), dir, () => undefined);
    expect(r.exitCode).toBe(0);
    // A listing of the engine's containers twice a second (the bench before) found few of the four brief ones.
    expect(r.goldSandboxes).toBe(5);
    expect(r.goldUnread).toBeLessThanOrEqual(4);
    expect(r.goldCpu).toBeGreaterThan(0);
    // The build is told apart by its label, and its image was never made.
    expect(r.imagesBuilt).toEqual([]);
    expect(r.buildsFailed).toEqual(['chainsmith-env:validation-containers-test']);
    expect(r.containerCpu).toBeCloseTo(r.buildCpu + r.goldCpu, 6);
    // The load the run met is reported beside its CPU (a ratio of runs at different loads leans).
    expect(Number.isFinite(r.loadAverage)).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
