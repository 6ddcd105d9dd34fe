import type { ExecOptions, ExecResult } from './shell-session';

export type { ExecOptions, ExecResult } from './shell-session';

/**
 * What the agent, the test runners and the harness need of a sandbox: run a command (a non-zero exit
 * is a result, only a broken engine throws), write a file as the agent user, and go away.
 */
export interface Sandbox {
  exec(command: string, opts: ExecOptions): Promise<ExecResult>;
  tryWriteFile(path: string, content: string | Buffer, mode?: number): Promise<ExecResult>;
  writeFile(path: string, content: string | Buffer, mode?: number): Promise<void>;
  destroy(): Promise<void>;
}
