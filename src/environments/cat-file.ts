import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cleanEnv, git } from '../git';

/** A reader idle this long exits; the next read starts another. */
const IDLE_MS = 2000;

interface Asked {
  object: string;
  resolve: (text: string | undefined) => void;
}

/**
 * `git show <object>` for a clone's files, answered by one long-lived `git cat-file --batch` per clone.
 * Detecting a stage's recipe reads a dozen files one after another, and a process per file forked the
 * whole worker each time: with dozens of rollouts on two cores that was the largest share of the
 * worker's CPU. What is not a blob (a tree, a name with a newline) and any failure of the reader are
 * left to `git show`, so the text is the same either way.
 */
export function showFile(repoPath: string, object: string): Promise<string | undefined> {
  if (object.includes('\n')) return showOne(repoPath, object);
  let reader = readers.get(repoPath);
  if (!reader?.alive) {
    reader = new CatFile(repoPath);
    readers.set(repoPath, reader);
  }
  return reader.ask(object);
}

const readers = new Map<string, CatFile>();

const showOne = (repoPath: string, object: string) => git(repoPath, ['show', object]).catch(() => undefined);

const FOUND = /^[0-9a-f]+ (\w+) (\d+)$/;

class CatFile {
  alive = true;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Asked[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private idle?: NodeJS.Timeout;

  constructor(private readonly repoPath: string) {
    this.child = spawn('git', ['cat-file', '--batch'], { cwd: repoPath, env: cleanEnv() });
    this.hold(false);
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.resume();
    this.child.stdin.on('error', () => this.stop());
    this.child.on('error', () => this.stop());
    this.child.on('close', () => this.stop());
  }

  ask(object: string): Promise<string | undefined> {
    clearTimeout(this.idle);
    this.hold(true);
    return new Promise((resolve) => {
      this.waiting.push({ object, resolve });
      this.child.stdin.write(`${object}\n`);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const eol = this.buffer.indexOf(10);
      if (eol < 0 || this.waiting.length === 0) return;
      const found = FOUND.exec(this.buffer.toString('utf8', 0, eol));
      const size = found ? Number(found[2]) : 0;
      // A found object's bytes and their newline must all be here.
      if (found && this.buffer.length < eol + 1 + size + 1) return;
      const asked = this.waiting.shift()!;
      if (!found) asked.resolve(undefined); // "<object> missing" (or ambiguous): git show fails on it too
      else if (found[1] === 'blob') asked.resolve(this.buffer.toString('utf8', eol + 1, eol + 1 + size));
      else void showOne(this.repoPath, asked.object).then(asked.resolve);
      this.buffer = this.buffer.subarray(found ? eol + 1 + size + 1 : eol + 1);
      if (this.waiting.length === 0) {
        this.hold(false);
        this.idle = setTimeout(() => this.retire(), IDLE_MS).unref();
      }
    }
  }

  /** While reads wait the reader keeps the process alive; between them it must not keep a worker or a CLI run from exiting. */
  private hold(on: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as { ref?: () => void; unref?: () => void }[]) {
      if (on) handle.ref?.();
      else handle.unref?.();
    }
  }

  /** Idle: the next read starts another reader. */
  private retire(): void {
    this.alive = false;
    if (readers.get(this.repoPath) === this) readers.delete(this.repoPath);
    this.child.stdin.end();
  }

  /** The reader has gone: what it was asked and did not answer goes to `git show`. */
  private stop(): void {
    this.alive = false;
    clearTimeout(this.idle);
    if (readers.get(this.repoPath) === this) readers.delete(this.repoPath);
    for (const asked of this.waiting.splice(0)) void showOne(this.repoPath, asked.object).then(asked.resolve);
    this.child.kill();
  }
}
