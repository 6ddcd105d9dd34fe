import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths';

// The package root, from test/support (ts-jest) or dist/test/support (benches, built).
const root = packageRoot();

/** A `chainsmith worker` in its own process (the built CLI), so a test can SIGKILL it mid-rollout. */
export class WorkerProcess {
  private child?: ChildProcess;
  private stopping = false;
  output = '';

  constructor(
    private readonly taskQueue: string,
    private readonly env: Record<string, string>,
    /** More `chainsmith worker` options, e.g. ['--sandbox-only']. */
    private readonly args: string[] = [],
  ) {}

  start(): void {
    this.child = spawn(
      'node',
      [join(root, 'bin/chainsmith.js'), 'worker', '--task-queue', this.taskQueue, ...this.args],
      {
        env: { ...process.env, CHAINSMITH_LOG_LEVEL: 'ERROR', ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child.stdout!.on('data', (d) => (this.output += d));
    this.child.stderr!.on('data', (d) => (this.output += d));
    // A worker that dies on its own is a finding: show why.
    this.child.on('exit', (code, signal) => {
      if (!this.stopping)
        console.error(`worker exited by itself (code ${code}, signal ${signal}):\n${this.output.slice(-4000)}`);
    });
  }

  /** The running process's id (its one-off containers carry it in their owner label). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** SIGKILL: no finally blocks, no graceful shutdown, containers left as they are. */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  /** SIGINT (the worker shuts down gracefully), then SIGKILL if it is still there after 10 s. */
  async stop(): Promise<void> {
    await this.signal('SIGINT', 10_000);
    await this.kill();
  }

  /** Sends `sig` and waits for the exit, or at most `waitMs`. */
  private async signal(sig: NodeJS.Signals, waitMs?: number): Promise<void> {
    const child = this.child;
    // Gone already: by itself (an exit code) or by an earlier signal (a signal code, exit code null).
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    this.stopping = true;
    child.kill(sig);
    await (waitMs === undefined ? exited : Promise.race([exited, new Promise((r) => setTimeout(r, waitMs))]));
    this.stopping = false;
  }
}
