// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { running } from '../support/process-alive';
import { run, stopAllChildren } from '../../src/process/run';
import { shellQuote } from '../../src/process/shell-quote';

/** Until `pid` has ended: an orphan is reaped by init a moment after its group is killed. */
async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && running(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !running(pid);
}

/** The pid a script printed first: a grandchild it left in the background. */
const firstPid = (stdout: string) => Number(stdout.split('\n')[0]);

test('a run returns its exit code and both outputs, given its input, in its cwd and environment', async () => {
  const r = await run('sh', ['-c', 'cat; echo "$PWD $KEPT ${GONE-unset}" >&2; exit 3'], {
    input: 'to stdin',
    cwd: '/tmp',
    baseEnv: { PATH: process.env.PATH, GONE: 'x' },
    env: { KEPT: 'yes', GONE: undefined },
  });
  expect(r).toMatchObject({
    exitCode: 3,
    signal: null,
    stdout: 'to stdin',
    stderr: '/tmp yes unset\n',
    timedOut: false,
    truncated: false,
  });
});

test('a command that does not exist is a result with the reason, not a throw', async () => {
  const r = await run('no-such-command-chainsmith', []);
  expect(r.exitCode).toBeNull();
  expect(r.startError?.message).toMatch(/ENOENT/);
});

test('a timeout stops the whole process group, children that ignore SIGTERM included', async () => {
  // The background sleep holds stdout open, so the run only ends when it is killed too.
  const r = await run('bash', ['-c', 'trap "" TERM; sleep 300 & echo $!; wait'], { timeoutMs: 300 });
  expect(r.timedOut).toBe(true);
  expect(r.exitCode).toBeNull();
  expect(r.signal).toBe('SIGKILL');
  expect(await ended(firstPid(r.stdout))).toBe(true);
});

test('an abort stops the process group the same way', async () => {
  const abort = new AbortController();
  const pending = run('bash', ['-c', 'sleep 300 & echo $!; wait'], {
    signal: abort.signal,
    onStdout: () => abort.abort(),
  });
  const r = await pending;
  expect(r.aborted).toBe(true);
  expect(r.timedOut).toBe(false);
  expect(await ended(firstPid(r.stdout))).toBe(true);
});

test('output is bounded, and what is kept is its end', async () => {
  const r = await run('bash', ['-c', 'seq 1 200000; seq 1 50000 >&2'], { maxOutputBytes: 1000 });
  expect(r.exitCode).toBe(0);
  expect(r.truncated).toBe(true);
  expect(Buffer.byteLength(r.stdout)).toBe(1000);
  expect(r.stdout.endsWith('199999\n200000\n')).toBe(true);
  expect(r.stderr.endsWith('50000\n')).toBe(true);
  expect(Buffer.byteLength(r.stderr)).toBe(1000);
});

test('stopAllChildren ends every live child, one started without a timeout included', async () => {
  let pending: ReturnType<typeof run> | undefined;
  await new Promise<void>((started) => {
    pending = run('bash', ['-c', 'trap "" TERM; echo ready; sleep 300'], { onStdout: () => started() });
  });
  await stopAllChildren();
  const r = await pending!;
  expect(r.signal).toBe('SIGKILL');
});

test('stopAllChildren returns once a child has exited, though a process it left holds its output open', async () => {
  let pending: ReturnType<typeof run> | undefined;
  const printed = await new Promise<string>((started) => {
    pending = run('bash', ['-c', 'sleep 300 & echo $!; wait'], { onStdout: started });
  });
  await stopAllChildren();
  // Out of reach of stopAllChildren (not in a group of its own), so ended here; only then does the run's output close.
  const orphan = firstPid(printed);
  expect(running(orphan)).toBe(true);
  process.kill(orphan, 'SIGKILL');
  expect((await pending!).signal).toBe('SIGTERM');
});

test('shellQuote keeps plain words bare and makes anything else one literal word for bash', async () => {
  expect(shellQuote('src/a_b-c.py')).toBe('src/a_b-c.py');
  const words = ['', "it's", 'a b', '$HOME', '`x`', '"q"', 'a\nb', '\\', '*', "'"];
  const r = await run('bash', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`]);
  expect(r.stdout.split('\0').slice(0, -1)).toEqual(words);
});

test('a character whose bytes arrive in two writes reaches the output callback whole', async () => {
  const seen: string[] = [];
  // "é" is 0xC3 0xA9: the script writes its first byte, waits, then the second.
  const r = await run('bash', ['-c', "printf '\\xc3'; sleep 0.3; printf '\\xa9\\n'"], {
    onStdout: (chunk) => seen.push(chunk),
  });
  expect(r.stdout).toBe('é\n');
  expect(seen.join('')).toBe('é\n');
  expect(seen.join('')).not.toContain('\ufffd');
});
