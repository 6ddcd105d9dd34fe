// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { spawn } from 'node:child_process';
import { running } from '../support/process-alive';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths';

/**
 * A bench in miniature (the built code, as `npm run bench` runs it): it ends its children on SIGINT
 * and SIGTERM, and starts two that would outlive it: a shell whose child ignores SIGTERM, in a group
 * of its own (as a validate run is), and a plain sleep. It prints the pids to be checked.
 */
const BENCH = `
const { run } = require(process.argv[1]);
const { endChildrenOnSignals } = require(process.argv[2]);
endChildrenOnSignals('bench');
const say = (d) => process.stdout.write(d);
run('bash', ['-c', 'trap "" TERM; sleep 300 & echo "grandchild $!"; wait'], { ownGroup: true, onStdout: say });
run('bash', ['-c', 'echo "child $$"; exec sleep 300'], { onStdout: say });
setInterval(() => undefined, 1000);
`;

for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  test(`a bench sent ${signal} stops the processes it started, and what they started, before it exits ${code}`, async () => {
    const dist = (path: string) => join(packageRoot(), 'dist', path);
    const bench = spawn('node', ['-e', BENCH, dist('src/process/run.js'), dist('src/process/end-on-signals.js')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    bench.stderr.on('data', (d) => (err += d));
    const pids = await new Promise<Record<string, number>>((resolve, reject) => {
      bench.stdout.on('data', (d) => {
        out += d;
        const found = Object.fromEntries(
          [...out.matchAll(/^(child|grandchild) (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
        );
        if (Object.keys(found).length === 2) resolve(found);
      });
      bench.on('exit', (c) => reject(new Error(`the bench exited (${c}) before its children started: ${err}`)));
    });
    expect(running(pids.child) && running(pids.grandchild)).toBe(true);
    const exited = new Promise<number | null>((resolve) => bench.once('exit', resolve));
    bench.kill(signal);
    expect(await exited).toBe(code);
    expect(err).toContain(`${signal}: stopping the processes this bench started`);
    // Orphans are reaped by init a moment after they die.
    for (let i = 0; i < 100 && (running(pids.child) || running(pids.grandchild)); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect({ child: running(pids.child), grandchild: running(pids.grandchild) }).toEqual({
      child: false,
      grandchild: false,
    });
  });
}
