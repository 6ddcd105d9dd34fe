// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths';
import { running } from '../support/process-alive';
import { cloneBundle } from '../support/real-repos';

/** Every process whose parent chain leads to `root`, read from /proc. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The field after the parenthesised command (which may hold spaces) is the state, then the parent pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // It ended while we read.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, of] of parent) if (of === pid) (found.push(child), walk(child));
  };
  walk(root);
  return found;
}

test('a mine sent SIGTERM while it reads a real history stops the git runs it started, then exits 143', async () => {
  const clone = await cloneBundle('pallets+jinja');
  const home = await mkdtemp(join(tmpdir(), 'chainsmith-stop-'));
  const mine = spawn(
    'node',
    [join(packageRoot(), 'bin/chainsmith.js'), 'mine', '--repo', clone, '--out', join(home, 'chains.jsonl')],
    {
      env: { ...process.env, CHAINSMITH_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  mine.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => mine.once('exit', resolve));
  // Until it has a git child: the mine is reading the history.
  let children: number[] = [];
  for (let i = 0; i < 600 && children.length === 0 && mine.exitCode === null; i++) {
    await new Promise((r) => setTimeout(r, 50));
    children = descendants(mine.pid!);
  }
  expect(children.length).toBeGreaterThan(0);
  mine.kill('SIGTERM');
  expect(await exited).toBe(143);
  expect(err).toContain('SIGTERM: stopping the processes this mine started');
  for (let i = 0; i < 100 && children.some(running); i++) await new Promise((r) => setTimeout(r, 50));
  expect(children.filter(running)).toEqual([]);
});
