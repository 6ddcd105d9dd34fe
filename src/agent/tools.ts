import { posix } from 'node:path';
import { z } from 'zod';
import type { DockerSandbox } from '../sandbox/docker-sandbox';
import { REPO_DIR } from '../sandbox/docker-sandbox';
import type { ToolCall } from '../schemas';

export const TOOL_ARGS = {
  bash: z.object({ command: z.string().min(1).describe('A bash command, run in the repository root') }),
  view_file: z.object({
    path: z.string().describe('Path relative to the repository root'),
    start_line: z.number().int().positive().optional(),
    end_line: z.number().int().positive().optional(),
  }),
  create_file: z.object({ path: z.string(), content: z.string() }),
  str_replace: z.object({
    path: z.string(),
    old_str: z.string().min(1).describe('Exact text to replace; must occur exactly once'),
    new_str: z.string(),
  }),
  submit: z.object({ summary: z.string().describe('What you changed and why') }),
} as const;
export type ToolName = keyof typeof TOOL_ARGS;

const DESCRIPTIONS: Record<ToolName, string> = {
  bash: 'Run a shell command in the repository (no network). Output is truncated when long.',
  view_file: 'Show a file with line numbers, optionally a line range.',
  create_file: 'Create or overwrite a file with the given content.',
  str_replace: 'Replace one exact occurrence of old_str with new_str in a file.',
  submit: 'Finish this task: your working tree is taken as your answer.',
};

/** OpenAI `tools` declarations, generated from the same zod schemas that validate the calls. */
export const TOOL_SPECS = (Object.keys(TOOL_ARGS) as ToolName[]).map((name) => ({
  type: 'function' as const,
  function: { name, description: DESCRIPTIONS[name], parameters: z.toJSONSchema(TOOL_ARGS[name]) as Record<string, unknown> },
}));

export interface ToolLimits {
  commandTimeoutSeconds: number;
  maxOutputChars: number;
}

export type ToolOutcome = { output: string; submitted: boolean; formatError: boolean };

/** Runs one tool call. Bad arguments and failing commands are answers for the model, not exceptions. */
export async function executeTool(sandbox: DockerSandbox, call: ToolCall, limits: ToolLimits): Promise<ToolOutcome> {
  const name = call.function.name as ToolName;
  const schema = TOOL_ARGS[name];
  if (!schema) return fail(`unknown tool "${call.function.name}"; use one of ${Object.keys(TOOL_ARGS).join(', ')}`);
  let json: unknown;
  try {
    json = JSON.parse(call.function.arguments || '{}');
  } catch {
    return fail(`arguments of ${name} are not valid JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return fail(`bad arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const args = parsed.data as any;
  const run = (cmd: string, cap = limits.maxOutputChars) =>
    sandbox.exec(cmd, { timeoutSeconds: limits.commandTimeoutSeconds, maxOutputChars: cap });

  switch (name) {
    case 'bash': {
      const r = await run(args.command);
      const note = r.timedOut ? `\n[command killed after ${limits.commandTimeoutSeconds}s]` : '';
      return ok(`${r.output}${note}\n[exit code ${r.exitCode}]`);
    }
    case 'view_file': {
      const path = await confined(sandbox, args.path);
      if (typeof path !== 'string') return path;
      const from = args.start_line ?? 1;
      const to = args.end_line ? `${args.end_line}p` : '$p';
      const r = await run(`sed -n '${from},${to}' -- ${quote(path)} | nl -ba -v ${from}`);
      return r.exitCode === 0 ? ok(r.output) : ok(`cannot read ${args.path}: ${r.output}`);
    }
    case 'create_file': {
      const path = await confined(sandbox, args.path);
      if (typeof path !== 'string') return path;
      await sandbox.writeFile(path, args.content);
      return ok(`wrote ${args.path} (${args.content.length} characters)`);
    }
    case 'str_replace': {
      const path = await confined(sandbox, args.path);
      if (typeof path !== 'string') return path;
      const r = await run(`cat -- ${quote(path)}`, 50_000_000);
      if (r.exitCode !== 0) return ok(`cannot read ${args.path}: ${r.output}`);
      const count = r.output.split(args.old_str).length - 1;
      if (count !== 1) return ok(`old_str occurs ${count} times in ${args.path}; it must occur exactly once`);
      await sandbox.writeFile(path, r.output.replace(args.old_str, () => args.new_str));
      return ok(`replaced one occurrence in ${args.path}`);
    }
    case 'submit':
      return { output: 'submitted', submitted: true, formatError: false };
  }
}

/** Resolves a path inside the repository, following symlinks; anything outside is refused. */
async function confined(sandbox: DockerSandbox, path: string): Promise<string | ToolOutcome> {
  const abs = posix.resolve(REPO_DIR, path);
  const inside = (p: string) => p === REPO_DIR || p.startsWith(`${REPO_DIR}/`);
  if (!inside(abs)) return ok(`refused: ${path} is outside the repository`);
  const real = await sandbox.exec(`realpath -m -- ${quote(abs)}`, { timeoutSeconds: 10, maxOutputChars: 4096 });
  const resolved = real.output.trim();
  if (real.exitCode !== 0 || !inside(resolved)) return ok(`refused: ${path} resolves outside the repository`);
  return resolved;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function ok(output: string): ToolOutcome {
  return { output, submitted: false, formatError: false };
}

function fail(output: string): ToolOutcome {
  return { output: `error: ${output}`, submitted: false, formatError: true };
}
