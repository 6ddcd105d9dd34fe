import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, closeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A dockerd of the test's own: its own socket, data root, exec root (so its own containerd), pid file
 * and containerd namespaces, started as provisioning starts the machine's (no bridge, no iptables), so
 * that stopping it disturbs nothing else running on the machine. `host` is its DOCKER_HOST.
 */
export class PrivateDockerd {
  readonly dir = mkdtempSync('/tmp/csd-');
  readonly host = `unix://${join(this.dir, 'docker.sock')}`;
  private child?: ChildProcess;
  private readonly log = join(this.dir, 'dockerd.log');

  async start(): Promise<void> {
    const name = `chainsmith-test-${process.pid}`;
    const out = openSync(this.log, 'a');
    mkdirSync(join(this.dir, 'data'), { recursive: true });
    this.child = spawn(
      'dockerd',
      [
        `--host=${this.host}`,
        `--data-root=${join(this.dir, 'data')}`,
        `--exec-root=${join(this.dir, 'exec')}`,
        `--pidfile=${join(this.dir, 'docker.pid')}`,
        // A system containerd, if one runs, is shared by every dockerd that finds it: keep to our own namespaces there.
        `--containerd-namespace=${name}`,
        `--containerd-plugins-namespace=${name}-plugins`,
        '--bridge=none',
        '--iptables=false',
        '--ip-forward=false',
      ],
      { stdio: ['ignore', out, out] },
    );
    closeSync(out);
    const exited = new Promise<void>((r) => this.child!.once('exit', () => r()));
    for (let i = 0; i < 600; i++) {
      if (
        await this.docker(['info']).then(
          () => true,
          () => false,
        )
      )
        return;
      if (await Promise.race([exited.then(() => true), sleep(100).then(() => false)])) break;
    }
    const tail = this.tail();
    await this.stop(); // one that never answered must not outlive the test
    throw new Error(`the test's own dockerd did not start:\n${tail}`);
  }

  /** SIGTERM, as a crash or an upgrade would stop it, and waits until it is gone (SIGKILL after 20 s). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]))) {
      child.kill('SIGKILL');
      await exited;
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Copies `images` from the machine's daemon into this one (its data root starts empty). */
  async copyImages(images: string[]): Promise<void> {
    const save = spawn('docker', ['save', ...images], { stdio: ['ignore', 'pipe', 'inherit'] });
    const load = spawn('docker', ['-H', this.host, 'load', '-q'], { stdio: ['pipe', 'ignore', 'inherit'] });
    save.stdout!.pipe(load.stdin!);
    const codes = await Promise.all([save, load].map((p) => new Promise<number | null>((r) => p.once('exit', r))));
    if (codes.some((c) => c !== 0))
      throw new Error(
        `copying ${images.join(', ')} into the test's own dockerd failed (exit codes ${codes.join(', ')})`,
      );
  }

  /** Stops the daemon and removes its directory (containers and images with it). */
  async remove(): Promise<void> {
    await this.stop();
    // Mounts under the data root can outlive a SIGKILLed daemon: unmount before removing.
    await run('sh', ['-c', `grep -o ' ${this.dir}/[^ ]*' /proc/self/mounts | sort -r | xargs -r -n1 umount -l`]).catch(
      () => undefined,
    );
    await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  docker(args: string[]) {
    return run('docker', ['-H', this.host, ...args]);
  }

  private tail(): string {
    return readFileSync(this.log, 'utf8').split('\n').slice(-20).join('\n');
  }
}
