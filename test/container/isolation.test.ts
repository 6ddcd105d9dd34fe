import Docker from 'dockerode';
import { mkdtemp, readlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerContainer, CONTAINER_LABEL } from '../../src/container/docker-container';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';

const docker = new Docker();
const SECRET = 'ghp_isolationTestTokenThatMustStayOutside0001';
let sandbox: DockerContainer;
let repo: ChainRepo;

beforeAll(async () => {
  repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-iso-')), 'iso'), {
    'README.md': '# iso\n',
  });
  // What a careless clone holds: a token in its remote URL. The sandbox must not see it.
  await writeFile(
    join(repo.path, '.git', 'config'),
    `[remote "origin"]\n\turl = https://x-access-token:${SECRET}@github.com/o/iso.git\n`,
    { flag: 'a' },
  );
  process.env.CHAINSMITH_ISOLATION_TEST_TOKEN = SECRET;
  const chain = repo.chain('iso/iso', [await repo.pr(1, 'Say more', { 'README.md': '# iso\n\nmore\n' })]);
  const env = await testEnvironments(docker).forStage(chain, 0);
  sandbox = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: repo.path,
    labels: { 'chainsmith.test': 'isolation' },
    memoryMb: 256,
    pidsLimit: 64,
    cpus: 0.5,
  });
});

afterAll(async () => {
  delete process.env.CHAINSMITH_ISOLATION_TEST_TOKEN;
  await sandbox?.destroy();
  expect(
    await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, 'chainsmith.test=isolation'] } }),
  ).toHaveLength(0);
});

/** Forks sleeping children until the kernel refuses (or 500 are running), then waits for them all. */
const FORK_UNTIL_REFUSED = `python3 - <<'PY'
import os, time
n = 0
try:
    while n < 500:
        if os.fork() == 0:
            os.close(1); os.close(2); time.sleep(1); os._exit(0)
        n += 1
    print("never refused")
except OSError:
    print(f"refused after {n} forks")
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
PY`;

const run = (cmd: string) => sandbox.exec(cmd, { timeoutSeconds: 20, maxOutputChars: 20_000, cwd: '/work' });

test('a command trying to reach the network fails: the sandbox has only a loopback interface', async () => {
  const tcp = await run('exec 3<>/dev/tcp/1.1.1.1/80');
  expect(tcp.exitCode).not.toBe(0);
  expect(tcp.output).toMatch(/Network is unreachable/);
  const py = await run(`python3 -c "import socket; socket.create_connection(('example.com', 443), timeout=3)"`);
  expect(py.exitCode).not.toBe(0);
  expect(py.output).toMatch(/gaierror|Temporary failure in name resolution|Name or service not known/);
  const ifaces = (await run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")).output.trim().split('\n');
  expect(ifaces).toEqual(['lo']);
  // A namespace of its own, not the host's.
  expect((await run('readlink /proc/self/ns/net')).output.trim()).not.toBe(await readlink('/proc/self/ns/net'));
});

test('loopback works inside, and localhost resolves: a test suite may serve and call itself', async () => {
  const serve = await run(
    `python3 -c "import socket; s = socket.socket(); s.bind(('localhost', 0)); s.listen(); c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.sendall(b'ping'); print(a.recv(4).decode(), s.getsockname()[0])"`,
  );
  expect(serve).toMatchObject({ exitCode: 0, output: 'ping 127.0.0.1\n' });
  expect((await run('getent hosts localhost')).output).toMatch(/^(127\.0\.0\.1|::1)\s+localhost/m);
  expect((await run('echo "127.0.0.1 example.com" >> /etc/hosts')).exitCode).not.toBe(0);
});

test("the sandbox's own host name resolves to a loopback address: a test suite may look itself up", async () => {
  const name = (await run('cat /proc/sys/kernel/hostname')).output.trim();
  expect(name).not.toBe('');
  const own = await run(`python3 -c "import socket; print(socket.gethostbyname(socket.gethostname()))"`);
  expect(own).toMatchObject({ exitCode: 0, output: '127.0.1.1\n' });
});

test('commands run as an unprivileged user without capabilities, with no way to gain privileges, under CPU, memory and process limits', async () => {
  expect((await run('id -u; id -un')).output.trim().split('\n')).toEqual(['1000', 'agent']);
  expect((await run('grep -E "^(CapEff|NoNewPrivs)" /proc/self/status')).output).toMatch(
    /CapEff:\s+0000000000000000\nNoNewPrivs:\s+1/,
  );
  const cpu = await run(
    'if [ -f /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/cpu.max; else echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"; fi',
  );
  expect(cpu.output.trim()).toBe('50000 100000');
  const memory = await run(
    'cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes',
  );
  expect(Number(memory.output.trim())).toBe(256 * 1024 * 1024);
  // A fork bomb stops at the pids limit instead of taking the host down.
  const forks = await run(FORK_UNTIL_REFUSED);
  const [, count] = /^refused after (\d+) forks$/m.exec(forks.output) ?? [];
  expect(Number(count)).toBeLessThan(64);
});

test('the worker’s secrets stay outside: not in the environment, and of the host clone only the object store is mounted, read-only', async () => {
  const env = await run('env; cat /proc/1/environ | tr "\\0" "\\n"');
  expect(env.output).not.toContain(SECRET);
  expect(env.output).not.toContain('CHAINSMITH_ISOLATION_TEST_TOKEN');
  expect((await run('ls -A /mirror')).output.trim()).toBe('objects');
  const grep = await run(`grep -rl "x-access-token" /mirror 2>/dev/null | wc -l`);
  expect(grep.output.trim()).toBe('0');
  const write = await run('touch /mirror/objects/planted');
  expect(write.exitCode).not.toBe(0);
  expect(write.output).toMatch(/Read-only file system/);
});
