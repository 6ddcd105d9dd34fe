import type { ExecOptions, ExecResult } from './shell-session';

export type { ExecOptions, ExecResult } from './shell-session';

/** Where the repository's working tree is in every sandbox. */
export const REPO_DIR = '/work/repo';

/**
 * A sandbox is where a stage's commands run, and nothing else: a DockerContainer is one, and so is a
 * StageSandbox (src/stage), a container set up at a stage's base. Containers are pooled and kept for a
 * round as containers (ContainerPool, round-container.ts); they are sandboxes only to what runs in them.
 *
 * What the agent, the test runners and the harness need of a sandbox: run a command (a non-zero exit
 * is a result, only a broken engine throws), write a file as the agent user, and go away.
 */
export interface Sandbox {
  exec(command: string, opts: ExecOptions): Promise<ExecResult>;
  tryWriteFile(path: string, content: string | Buffer, mode?: number): Promise<ExecResult>;
  writeFile(path: string, content: string | Buffer, mode?: number): Promise<void>;
  destroy(): Promise<void>;
}
