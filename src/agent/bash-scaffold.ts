import type { ExecResult } from '../container/sandbox';
import type { Message } from '../schemas';
import { shorten } from './context-window';
import { bashSystemPrompt } from './prompts';
import type { Scaffold } from './scaffold';
import { shellQuote } from '../process/shell-quote';

/** The first line of a command's output that ends the task; the system prompt teaches it. */
export const SUBMIT_MARKER = 'CHAINSMITH_SUBMIT';

export type BlockProblem = 'none' | 'several' | 'unterminated' | 'empty';

/**
 * The one ```bash block of a reply, or what is wrong with it. Fences are read line by line: a line
 * of ``` with an info string opens a block, a bare ``` line closes it; blocks of other languages
 * (a diff quoted in the reasoning) are allowed and ignored, but every block must be closed, since an
 * open one leaves unclear where the command ends.
 */
export function bashBlock(text: string): { command: string } | { problem: BlockProblem; count?: number } {
  const commands: string[] = [];
  let open: { bash: boolean; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    const fence = /^\s*```\s*([\w+-]*)\s*$/.exec(line);
    if (!open) {
      if (fence) open = { bash: fence[1] === 'bash', lines: [] };
    } else if (fence && fence[1] === '') {
      if (open.bash) commands.push(open.lines.join('\n'));
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  if (open) return { problem: 'unterminated' };
  if (commands.length > 1) return { problem: 'several', count: commands.length };
  if (!commands.length) return { problem: 'none' };
  if (!commands[0].trim()) return { problem: 'empty' };
  return { command: commands[0] };
}

const HOW =
  'Reply with your reasoning and exactly one ```bash block holding the next command, closed by ``` on a line of its own. ' +
  `When the task is done, run a command whose output starts with the line ${SUBMIT_MARKER}.`;

/** The format-error turn for each way a reply can miss the protocol: says what was wrong and that nothing ran. */
export function formatError(problem: BlockProblem, count?: number): string {
  const what = {
    none: 'Your reply had no ```bash block, so nothing ran.',
    several: `Your reply had ${count} \`\`\`bash blocks; one command runs per step, so none of them ran.`,
    unterminated: 'Your reply opened a ``` block that it did not close, so nothing ran.',
    empty: 'The ```bash block of your reply was empty, so nothing ran.',
  }[problem];
  return `${what} ${HOW}`;
}

/** mini-swe-agent's observation shape: the exit code, then the output as the command printed it. */
export function observation(r: ExecResult, timeoutSeconds: number): string {
  const text = r.output + (r.timedOut ? `\n[command killed after ${timeoutSeconds}s]` : '');
  return `<returncode>${r.exitCode}</returncode>\n<output>\n${text}${text === '' || text.endsWith('\n') ? '' : '\n'}</output>`;
}

const isObservation = (m: Message) => m.role === 'user' && m.content.startsWith('<returncode>');

/** Whether a command's output asks to end the task: its first non-blank line is the marker. */
export function isSubmission(output: string): boolean {
  return output.trimStart().split('\n', 1)[0].trim() === SUBMIT_MARKER;
}

/**
 * mini-swe-agent's protocol: no tools in the request; each reply is reasoning plus one ```bash block
 * that runs in the sandbox, and its output comes back as the next user turn. The submission's own
 * output gets no turn: the working tree is the answer, and a row ending in the agent's reply is what
 * a trainer wants.
 */
export const BASH_SCAFFOLD: Scaffold = {
  kind: 'bash',
  systemPrompt: bashSystemPrompt,

  async act(reply, sandbox, limits, redactor) {
    const block = bashBlock(reply.content ?? '');
    if (!('command' in block)) {
      return {
        messages: [{ role: 'user', content: formatError(block.problem, block.count) }],
        actions: 0,
        submitted: false,
        formatError: true,
      };
    }
    const r = await sandbox.exec(redactor.secretsIn(block.command), {
      timeoutSeconds: limits.commandTimeoutSeconds,
      maxOutputChars: limits.maxOutputChars,
    });
    if (isSubmission(r.output)) return { messages: [], actions: 1, submitted: true, formatError: false };
    return {
      messages: [{ role: 'user', content: observation(r, limits.commandTimeoutSeconds) }],
      actions: 1,
      submitted: false,
      formatError: false,
    };
  },

  shortened(m: Message): Message {
    // A reply's block can write a whole file through a heredoc: as long as any output.
    if (isObservation(m) || (m.role === 'assistant' && m.content))
      return { ...m, content: shorten(m.content!) } as Message;
    return m;
  },

  reply(action) {
    const command = 'run' in action ? action.run : `echo ${SUBMIT_MARKER} && echo ${shellQuote(action.submit)}`;
    const why = 'run' in action ? action.why : 'The task is done; submitting.';
    return { role: 'assistant', content: `${why}\n\n\`\`\`bash\n${command}\n\`\`\`` };
  },
};
