import type Docker from 'dockerode';
import { z } from 'zod';
import { checkoutLines } from '../container/checkout';
import { DockerContainer } from '../container/docker-container';
import { ownerLabel } from '../container/orphans';
import { REPO_DIR } from '../container/sandbox';
import { shellQuote } from '../process/shell-quote';
import { ProposalSchema } from './proposal';

/** Labels the agent's reading container: a sweep finds one a crash left. */
export const SETUP_LABEL = 'chainsmith.setup-agent';
/** What one tool call may return: a read that large is cut, with a note, so a big file cannot fill the prompt. */
const MAX_OUTPUT = 6_000;
const MAX_LINES = 200;

const path = z.string().min(1).describe('Path relative to the repository root');

export const READ_TOOLS = {
  list_files: z.object({ path: z.string().describe('A directory relative to the root; "." for all') }),
  read_file: z.object({ path, start_line: z.number().int().positive().describe('First line to show (1 for the top)') }),
  grep: z.object({
    pattern: z.string().min(1).describe('An extended regular expression'),
    path: z.string().describe('Where to search; "." for everywhere'),
  }),
} as const;
export type ReadTool = keyof typeof READ_TOOLS;

const DESCRIPTIONS: Record<ReadTool | 'propose_recipe', string> = {
  list_files: `List the tracked files under a directory (at most ${MAX_LINES}).`,
  read_file: `Show ${MAX_LINES} lines of a file from start_line on, numbered.`,
  grep: `Search tracked files for an extended regular expression; prints file:line:match (at most ${MAX_LINES}).`,
  propose_recipe: 'Propose the recipe chainsmith should build and validate: this ends your turn.',
};

/** The OpenAI `tools` declarations: the three read tools and the proposal. */
export const SETUP_TOOL_SPECS = [
  ...(Object.keys(READ_TOOLS) as ReadTool[]).map((name) => [name, READ_TOOLS[name]] as const),
  ['propose_recipe', ProposalSchema] as const,
].map(([name, schema]) => ({
  type: 'function' as const,
  function: { name, description: DESCRIPTIONS[name], parameters: z.toJSONSchema(schema) as Record<string, unknown> },
}));

/**
 * The repository at a stage's base in a container without network, read by git only: the agent sees
 * tracked files, nothing it can run. Every answer is bounded (MAX_LINES, MAX_OUTPUT).
 */
export class RepoReader {
  private constructor(private readonly sandbox: DockerContainer) {}

  static async open(docker: Docker, image: string, repoPath: string, sha: string): Promise<RepoReader> {
    const sandbox = await DockerContainer.create(docker, {
      image,
      mirrorPath: repoPath,
      labels: { [SETUP_LABEL]: '', ...ownerLabel() },
      memoryMb: 512,
      pidsLimit: 128,
      network: 'none',
    });
    const reader = new RepoReader(sandbox);
    const r = await sandbox.exec(`set -e\n${checkoutLines(sha).join('\n')}`, {
      timeoutSeconds: 120,
      maxOutputChars: 2_000,
      cwd: '/work',
    });
    if (r.exitCode !== 0) {
      await sandbox.destroy();
      throw new Error(`cannot check out ${sha.slice(0, 12)} for the setup agent: ${r.output.trim()}`);
    }
    return reader;
  }

  /** The root's entries, for the first message. */
  async root(): Promise<string> {
    return this.run('git ls-tree --name-only HEAD');
  }

  /** One tool call: its output, or what was wrong with its arguments. */
  async call(name: string, args: unknown): Promise<string> {
    if (!(name in READ_TOOLS)) return `unknown tool ${name}: use list_files, read_file, grep or propose_recipe`;
    const parsed = READ_TOOLS[name as ReadTool].safeParse(args);
    if (!parsed.success)
      return `invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`;
    const a = parsed.data as Record<string, string | number>;
    const where = shellQuote(String(a.path ?? '.'));
    switch (name as ReadTool) {
      case 'list_files':
        return this.run(
          `git ls-files -- ${where} | head -n ${MAX_LINES}; echo "($(git ls-files -- ${where} | wc -l) files)"`,
        );
      case 'read_file': {
        const from = Number(a.start_line);
        return this.run(
          `test -f ${where} || { echo "no such file: "${where}; exit 0; }; awk -v a=${from} -v b=${from + MAX_LINES - 1} 'NR>=a && NR<=b { printf "%d\\t%s\\n", NR, $0 }' ${where}; echo "($(wc -l < ${where}) lines)"`,
        );
      }
      case 'grep':
        return this.run(
          `git grep -n -I -E -e ${shellQuote(String(a.pattern))} -- ${where} | cut -c1-300 | head -n ${MAX_LINES}`,
          '(no match)',
        );
    }
  }

  private async run(command: string, empty = '(nothing)'): Promise<string> {
    const r = await this.sandbox.exec(command, { timeoutSeconds: 30, maxOutputChars: MAX_OUTPUT, cwd: REPO_DIR });
    return r.output.trim() || empty;
  }

  async close(): Promise<void> {
    await this.sandbox.destroy();
  }
}
