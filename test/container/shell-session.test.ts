import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerContainer, CONTAINER_LABEL } from '../../src/container/docker-container';
import { baseImageTag } from '../../src/environments/images';
import { ChainRepo } from '../support/chain-repo';

const docker = new Docker();
let sandbox: DockerContainer;

beforeAll(async () => {
  const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-shell-')), 'shell'), {
    'README.md': '# shell\n',
  });
  sandbox = await DockerContainer.create(docker, {
    image: baseImageTag(),
    mirrorPath: repo.path,
    labels: { 'chainsmith.test': 'shell-session' },
    memoryMb: 256,
    pidsLimit: 64,
  });
});

afterAll(async () => {
  await sandbox?.destroy();
  expect(
    await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, 'chainsmith.test=shell-session'] } }),
  ).toHaveLength(0);
});

const run = (cmd: string, timeoutSeconds = 20) =>
  sandbox.exec(cmd, { timeoutSeconds, maxOutputChars: 20_000, cwd: '/work' });

/** The engine's exec_create events for the sandbox since `since` (seconds). */
async function execsSince(since: number): Promise<number> {
  const until = Math.ceil(Date.now() / 1000) + 1;
  const filters = JSON.stringify({ container: [sandbox.container.id], event: ['exec_create'] });
  const raw = (await docker.getEvents({ since, until, filters } as object)) as unknown as NodeJS.ReadableStream;
  let text = '';
  for await (const chunk of raw) text += chunk.toString();
  return text.split('\n').filter((l) => l.trim()).length;
}

test('commands keep their exit code, working directory and stderr in order, with nothing of the shell leaking in', async () => {
  const r = await run('pwd; echo out; echo err >&2; echo "[${id-unset}] [${LC_ALL-unset}] [$LANG]"; exit 3');
  expect(r).toEqual({ output: '/work\nout\nerr\n[unset] [unset] [C.UTF-8]\n', exitCode: 3, timedOut: false });
  expect((await sandbox.exec('pwd', { timeoutSeconds: 5, maxOutputChars: 100 })).output).toBe('/work/repo\n');
});

test('a file of any size and bytes arrives whole through the shell, and a command never reads the request stream', async () => {
  const content = Buffer.concat([Buffer.from('héllo → wörld\n'.repeat(50_000)), Buffer.from([0, 255, 10, 13, 0])]);
  await sandbox.writeFile('/work/big.bin', content);
  expect((await run('sha256sum < /work/big.bin | cut -c1-64')).output.trim()).toBe(
    require('node:crypto').createHash('sha256').update(content).digest('hex'),
  );
  // A command that reads its standard input sees end-of-file, not the next request.
  expect(await run('cat; echo done')).toMatchObject({ output: 'done\n', exitCode: 0 });
});

test('commands and working directories arrive byte for byte, short or long: whitespace, backslashes, quotes and UTF-8 kept', async () => {
  await run("mkdir -p '/work/a dir \\ with é'");
  const odd = await sandbox.exec("  printf '%s|' \"$PWD\" 'tab\\there' \"back\\\\slash\" 'ü→'\n\n", {
    timeoutSeconds: 5,
    maxOutputChars: 1000,
    cwd: '/work/a dir \\ with é',
  });
  expect(odd).toMatchObject({ output: '/work/a dir \\ with é|tab\\there|back\\slash|ü→|', exitCode: 0 });
  // A command ends at a NUL, as an argument would, and the next request is read whole.
  expect(await run('echo before\0echo after')).toMatchObject({ output: 'before\n', exitCode: 0 });
  // Past the size bash reads itself (4 KiB), at it, and past what one argument of execve holds (128 KiB).
  for (const size of [4096, 4097, 100_000, 300_000]) {
    const body = 'x'.repeat(size - "printf %s ''".length - 2);
    const cmd = `printf %s '${body}'`;
    expect(Buffer.byteLength(cmd)).toBe(size - 2);
    const r = await sandbox.exec(`${cmd}\n\n`, { timeoutSeconds: 5, maxOutputChars: size, cwd: '/work' });
    expect(r).toMatchObject({ output: body, exitCode: 0 });
  }
});

test('a command longer than an argument can be (an agent writing a large file by heredoc) runs as a short one would', async () => {
  const lines = [...Array(20_000).keys()].map((i) => `line ${i} with 'quotes' and $dollars`).join('\n');
  expect(Buffer.byteLength(lines)).toBeGreaterThan(128 * 1024);
  const r = await run(
    `cat > /work/big.txt <<'EOF'\n${lines}\nEOF\necho "args: $# [$1]"; wc -l < /work/big.txt; exit 4`,
  );
  expect(r).toMatchObject({ output: 'args: 0 []\n20000\n', exitCode: 4 });
  expect((await run('tail -n 1 /work/big.txt')).output).toBe("line 19999 with 'quotes' and $dollars\n");
  // Its errors name the line as a short command's do, not a file of the shell's; its text arrives whole
  // (a trailing backslash-newline joins nothing, as under -c), and none of the shell's variables shows.
  for (const pad of ['', `${'#'.repeat(5_000)}\n`]) {
    const how = pad ? 'eval' : '-c';
    const bad = await run(`${pad}echo "[$0] [\${__c-unset}]"\nif then`);
    expect(bad.exitCode).toBe(2);
    expect(bad.output).toMatch(
      new RegExp(
        `^\\[chainsmith\\] \\[unset\\]\nchainsmith: ${how}: line ${pad ? 3 : 2}: syntax error near unexpected token .then.\n`,
      ),
    );
    expect(await run(`${pad}echo a \\\n`)).toMatchObject({ output: 'a\n', exitCode: 0 });
  }
});

test('a command past its timeout is killed with its children, and the shell goes on', async () => {
  const r = await run('sleep 30 & sleep 30; echo never', 1);
  expect(r.timedOut).toBe(true);
  expect(r.output).not.toContain('never');
  expect(await run('echo still here')).toMatchObject({ output: 'still here\n', exitCode: 0 });
});

test('output a background process writes after its command returned does not reach the next result', async () => {
  await run('(sleep 0.3; echo late) &');
  await new Promise((r) => setTimeout(r, 600));
  expect(await run('echo mine')).toMatchObject({ output: 'mine\n', exitCode: 0 });
});

test('a command killed by a signal says so in its own output, and no notice of it reaches a later command', async () => {
  for (let i = 0; i < 4; i++) {
    expect(await run('echo before; kill -9 0')).toMatchObject({
      output: 'before\nchainsmith: the command was killed by SIGKILL\n',
      exitCode: 137,
    });
    expect(await run('echo after')).toMatchObject({ output: 'after\n', exitCode: 0 });
  }
});

test('a command that kills the shell gets its exit code, and the next command gets a new shell', async () => {
  const r = await run('kill -9 $(pgrep -x bash)');
  expect(r.exitCode).toBe(137);
  expect(await run('echo again')).toMatchObject({ output: 'again\n', exitCode: 0 });
});

test('many commands cost the engine one exec: the shell stays attached between them', async () => {
  const since = Math.floor(Date.now() / 1000) - 1;
  await new Promise((r) => setTimeout(r, 1100));
  const before = await execsSince(since);
  for (let i = 0; i < 20; i++)
    expect((await run(`echo ${i} >> /work/log; wc -l < /work/log`)).output.trim()).toBe(String(i + 1));
  expect((await execsSince(since)) - before).toBe(0);
});
