import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cleanEnv, git } from '../git';
import { hasCommit } from '../container/host-repo';

/** A reader idle this long exits; the next read starts another. */
const IDLE_MS = 2000;

/** An object as `cat-file --batch` gives it; null where it is missing; undefined where the reader failed. */
type Answer = { type: string; body: Buffer } | null | undefined;

/**
 * Detecting a stage's recipe lists its root tree and reads a dozen files one after another, and a git
 * process per question forked the whole worker each time: with dozens of rollouts on two cores that
 * was the largest share of the worker's CPU. One long-lived `git cat-file --batch` per clone answers
 * them instead. Where its answer could differ from the plain command's (a name with a newline, an
 * object of another type, a name git would quote, the reader failing) the plain command answers, so
 * the result is the same either way.
 */
function ask(repoPath: string, object: string): Promise<Answer> {
  if (object.includes('\n')) return Promise.resolve(undefined);
  let reader = readers.get(repoPath);
  if (!reader?.alive) {
    reader = new CatFile(repoPath);
    readers.set(repoPath, reader);
  }
  return reader.ask(object);
}

/** What `git show <object>` prints for a file; undefined where it fails. */
export async function showFile(repoPath: string, object: string): Promise<string | undefined> {
  const answer = await ask(repoPath, object);
  if (answer === null) return undefined; // missing (or ambiguous): git show fails on it too
  if (answer?.type === 'blob') return answer.body.toString('utf8');
  return git(repoPath, ['show', object]).catch(() => undefined);
}

/** What `git ls-tree <commit>` prints: "mode type id<TAB>name" lines of its root. */
export async function listTree(repoPath: string, commit: string): Promise<string> {
  const answer = await ask(repoPath, `${commit}^{tree}`);
  const lines = answer?.type === 'tree' ? treeLines(answer.body) : undefined;
  return lines ?? git(repoPath, ['ls-tree', commit]);
}

/**
 * Whether `rev` names a commit in the clone, as hasCommit's `git cat-file -e <rev>^{commit}` tells
 * (which answers where the reader failed). A stage's commits are asked about several times each (its
 * inputs, its recipe), a process apiece before.
 */
export async function commitExists(repoPath: string, rev: string): Promise<boolean> {
  const answer = await ask(repoPath, `${rev}^{commit}`);
  if (answer === undefined) return hasCommit(repoPath, rev);
  return answer?.type === 'commit';
}

/** The committer date of commit `rev`, the instant `git log -1 --format=%cI` prints; undefined where the reader cannot tell. */
export async function committerDate(repoPath: string, rev: string): Promise<Date | undefined> {
  const answer = await ask(repoPath, `${rev}^{commit}`);
  if (answer?.type !== 'commit') return undefined;
  // The header ends at the first empty line; its committer line ends in seconds since the epoch and the zone.
  const header = answer.body.subarray(0, answer.body.indexOf('\n\n')).toString('utf8');
  const seconds = /^committer .* (\d+) [+-]\d{4}$/m.exec(header)?.[1];
  return seconds ? new Date(Number(seconds) * 1000) : undefined;
}

/** A tree object's entries as ls-tree prints them, or undefined where a name would be quoted. */
function treeLines(tree: Buffer): string | undefined {
  let out = '';
  for (let at = 0; at < tree.length; ) {
    const space = tree.indexOf(0x20, at);
    const nul = tree.indexOf(0, space);
    const mode = tree.toString('latin1', at, space).padStart(6, '0');
    const name = tree.subarray(space + 1, nul);
    if (name.some((byte) => byte < 0x20 || byte >= 0x7f || byte === 0x22 || byte === 0x5c)) return undefined;
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    out += `${mode} ${type} ${tree.toString('hex', nul + 1, nul + 21)}\t${name.toString('latin1')}\n`;
    at = nul + 21;
  }
  return out;
}

const readers = new Map<string, CatFile>();

const FOUND = /^[0-9a-f]+ (\w+) (\d+)$/;

class CatFile {
  alive = true;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((answer: Answer) => void)[] = [];
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

  ask(object: string): Promise<Answer> {
    clearTimeout(this.idle);
    this.hold(true);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
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
      // Copied: the answer outlives the buffer it came in.
      this.waiting.shift()!(
        found ? { type: found[1], body: Buffer.from(this.buffer.subarray(eol + 1, eol + 1 + size)) } : null,
      );
      this.buffer = this.buffer.subarray(found ? eol + 1 + size + 1 : eol + 1);
      if (this.waiting.length === 0) {
        this.hold(false);
        this.idle = setTimeout(() => this.retire(), IDLE_MS).unref();
      }
    }
  }

  /** While reads wait the reader keeps the process alive; between them it must not keep a worker or a CLI run from exiting. */
  private hold(on: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as {
      ref?: () => void;
      unref?: () => void;
    }[]) {
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

  /** The reader has gone: what it was asked and did not answer is left to the plain commands. */
  private stop(): void {
    this.alive = false;
    clearTimeout(this.idle);
    if (readers.get(this.repoPath) === this) readers.delete(this.repoPath);
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
    this.child.kill();
  }
}
