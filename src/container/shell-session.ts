import { randomBytes } from 'node:crypto';
import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { TransientError } from '../errors';
import { CappedOutput } from './output';

export interface ExecResult {
  output: string;
  exitCode: number;
  timedOut: boolean;
}

export interface ExecOptions {
  timeoutSeconds: number;
  maxOutputChars: number;
  cwd?: string;
}

/**
 * The shell that runs every command of a sandbox. Each request is a header line
 * `ID TIMEOUT CWD_BYTES CMD_BYTES INPUT_BYTES` and then those bytes. A short working directory or
 * command is read by bash's own `read -N` (a byte per system call, cheaper than a process up to a few
 * KiB); anything longer, and the input, by `dd … iflag=fullblock`, which reads exactly that many. A short
 * command runs as `bash -c`; a longer one is read whole (trailing newlines kept) from its file and run by
 * `eval` in `bash -c`, since one argument of execve holds at most 128 KiB (an agent's heredoc of a large
 * file is longer); both run as `chainsmith` ($0, which their errors start with) with no positional
 * parameters and no variable of the shell's. The command runs under
 * `timeout` (which kills its whole process group) with the input (an empty file when there is none) as its standard input:
 * never the request stream. Its output, stderr merged in order, is followed by NUL, the request's id
 * and its exit code. A command killed by a signal gets a line that says which, in its own output: bash's
own notice of it would come on the shell's stderr, at a moment of its choosing (often during a later
command), so the shell's stderr goes to a file. Variables here are not exported: commands see none of them, nor LC_ALL=C, which
 * makes the lengths count bytes. The shell first waits (briefly) for the /etc/hosts an offline sandbox's
 * PID 1 writes (docker-sandbox.ts).
 */
const SERVER = `LC_ALL=C
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s /etc/hosts ] && break; sleep 0.01; done
d=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
exec 2>>"$d/shell.err"
take() { if [ "$1" -gt 0 ]; then dd bs="$1" count=1 iflag=fullblock status=none > "$2"; else : > "$2"; fi; }
field() {
  if [ "$1" -eq 0 ]; then printf -v "$2" ''
  elif [ "$1" -le 4096 ]; then IFS= read -r -N "$1" "$2"
  else take "$1" "$d/field" && { IFS= read -r -d '' "$2" < "$d/field" || :; }; fi
}
while read -r id t n_cwd n_cmd n_in; do
  field "$n_cwd" cwd || exit 70
  if [ "$n_cmd" -le 4096 ]; then field "$n_cmd" cmd || exit 70; run=(-c "$cmd" chainsmith)
  else take "$n_cmd" "$d/cmd" || exit 70; run=(-c "IFS= read -r -d '' __c < '$d/cmd'; eval \\"unset __c; \\$__c\\"" chainsmith); fi
  take "$n_in" "$d/in" || exit 70
  (cd -- "$cwd" && exec timeout -k 5 "$t" bash "\${run[@]}") < "$d/in" 2>&1
  s=$?; [ "$s" -gt 128 ] && printf 'chainsmith: the command was killed by SIG%s\\n' "$(kill -l "$s")"
  printf '\\n\\0chainsmith-exit %s %d\\0' "$id" "$s"
done`;

interface Pending {
  mark: string;
  out: CappedOutput;
  resolve: (r: { output: string; exitCode: number }) => void;
  reject: (e: Error) => void;
}

/**
 * One long-lived shell per sandbox, fed commands over a single attached stream. A `docker exec` per
 * command costs the engine ~40 ms of CPU (runc sets up a process in the container's namespaces each
 * time); a command through this shell costs a few ms. With dozens of rollouts on two cores that is the
 * difference between model-bound and CPU-bound. Commands run one at a time, in order.
 */
export class ShellSession {
  private pending?: Pending;
  private buffer = '';
  private queue: Promise<unknown> = Promise.resolve();
  private next = 0;
  private dead?: Error;
  private readonly nonce = randomBytes(6).toString('hex');

  private constructor(
    private readonly container: Docker.Container,
    private readonly exec: Docker.Exec,
    private readonly stream: Duplex,
  ) {}

  static async open(docker: Docker, container: Docker.Container): Promise<ShellSession> {
    const exec = await container.exec({
      Cmd: ['bash', '-c', SERVER],
      User: 'agent',
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      WorkingDir: '/',
    });
    const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
    const session = new ShellSession(container, exec, stream);
    const sink = new PassThrough();
    sink.setEncoding('utf8');
    sink.on('data', (chunk: string) => session.onData(chunk));
    docker.modem.demuxStream(stream, sink, sink);
    stream.on('end', () => void session.onEnd());
    stream.on('error', (err) =>
      session.fail(new TransientError(`sandbox shell stream failed: ${err.message}`, { cause: err })),
    );
    return session;
  }

  /** False once the shell has gone (killed by a command, or the engine lost it): open another. */
  get alive(): boolean {
    return !this.dead;
  }

  run(command: string, opts: ExecOptions, input?: Buffer): Promise<ExecResult> {
    const result = this.queue.then(() => this.send(command, opts, input));
    this.queue = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.dead ??= new TransientError('sandbox shell closed');
    this.stream.destroy();
  }

  private async send(command: string, opts: ExecOptions, input: Buffer = Buffer.alloc(0)): Promise<ExecResult> {
    if (this.dead) throw this.dead;
    const id = `${this.nonce}-${this.next++}`;
    // An argument ends at its first NUL (as execve would end it); `read -N` would skip one and lose the count.
    const cwd = Buffer.from((opts.cwd ?? '/work/repo').split('\0')[0]);
    const cmd = Buffer.from(command.split('\0')[0]);
    const header = `${id} ${opts.timeoutSeconds}s ${cwd.length} ${cmd.length} ${input.length}\n`;
    const out = new CappedOutput(opts.maxOutputChars);
    this.buffer = '';
    const ended = new Promise<{ output: string; exitCode: number }>((resolve, reject) => {
      this.pending = { mark: `\n\u0000chainsmith-exit ${id} `, out, resolve, reject };
    });
    const guardMs = (opts.timeoutSeconds + 30) * 1000;
    let guard: NodeJS.Timeout | undefined;
    const overdue = new Promise<never>((_, reject) => {
      guard = setTimeout(() => {
        this.close();
        reject(new TransientError(`sandbox command did not return ${opts.timeoutSeconds + 30}s after its timeout`));
      }, guardMs);
    });
    try {
      this.stream.write(Buffer.concat([Buffer.from(header), cwd, cmd, input]));
      const { output, exitCode } = await Promise.race([ended, overdue]);
      return { output, exitCode, timedOut: exitCode === 124 || exitCode === 137 };
    } finally {
      clearTimeout(guard);
      if (this.pending?.mark.includes(id)) this.pending = undefined;
    }
  }

  private onData(chunk: string): void {
    const p = this.pending;
    if (!p) return; // output of a background process after its command returned
    this.buffer += chunk;
    const at = this.buffer.indexOf(p.mark);
    if (at >= 0) {
      const end = this.buffer.indexOf('\u0000', at + p.mark.length);
      if (end < 0) return;
      p.out.push(this.buffer.slice(0, at));
      const exitCode = Number(this.buffer.slice(at + p.mark.length, end));
      this.buffer = '';
      this.pending = undefined;
      p.resolve({ output: p.out.text(), exitCode });
      return;
    }
    // Everything but a possible start of the mark is output.
    const keep = p.mark.length - 1;
    if (this.buffer.length > keep) {
      p.out.push(this.buffer.slice(0, -keep));
      this.buffer = this.buffer.slice(-keep);
    }
  }

  /**
   * The shell ended. If the container still runs and the shell has an exit code, the command killed it
   * (`kill -9 -1`, say): that is the command's result, with the shell's exit code. Otherwise the sandbox
   * is gone, or going (removed while the command ran): the engine's failure, not the command's.
   */
  private async onEnd(): Promise<void> {
    const p = this.pending;
    this.dead ??= new TransientError('sandbox shell ended');
    if (!p) return;
    const [running, exit] = await Promise.all([
      this.container.inspect().then(
        (c) => c.State.Running,
        () => false,
      ),
      this.exec.inspect().then(
        (e) => e.ExitCode,
        () => null,
      ),
    ]);
    if (!running || exit === null) return p.reject(new TransientError('the sandbox stopped while a command ran'));
    p.out.push(this.buffer);
    this.buffer = '';
    p.resolve({ output: p.out.text(), exitCode: exit });
  }

  private fail(err: Error): void {
    this.dead ??= err;
    this.pending?.reject(err);
  }
}
