import { posix } from 'node:path';
import type { Sandbox } from '../container/sandbox';
import { REPO_DIR } from '../container/sandbox';
import type { ToolCall } from '../schemas';
import { TOOL_ARGS, type ToolName } from './tool-specs';
import { shellQuote } from '../process/shell-quote';

export { TOOL_ARGS, TOOL_SPECS, type ToolName } from './tool-specs';

export interface ToolLimits {
  commandTimeoutSeconds: number;
  maxOutputChars: number;
}

export type ToolOutcome = { output: string; submitted: boolean; formatError: boolean };

/** Files the edit tools read whole; larger ones are for bash (sed, patch). */
const MAX_EDIT_BYTES = 4_000_000;

/** Runs one tool call. Bad arguments and failing commands are answers for the model, not exceptions. */
export async function executeTool(sandbox: Sandbox, call: ToolCall, limits: ToolLimits): Promise<ToolOutcome> {
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
  if (!parsed.success)
    return fail(
      `bad arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
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
      const q = shellQuote(path);
      const r = await run(
        `if [ -d ${q} ]; then ls -la -- ${q}; else sed -n '${from},${to}' -- ${q} | nl -ba -v ${from}; fi`,
      );
      return r.exitCode === 0 ? ok(r.output) : ok(`cannot read ${args.path}: ${r.output}`);
    }
    case 'create_file': {
      const path = await confined(sandbox, args.path);
      if (typeof path !== 'string') return path;
      const w = await sandbox.tryWriteFile(path, args.content);
      return ok(
        w.exitCode === 0
          ? `wrote ${args.path} (${args.content.length} characters)`
          : `cannot write ${args.path}: ${w.output.trim()}`,
      );
    }
    case 'str_replace': {
      const path = await confined(sandbox, args.path);
      if (typeof path !== 'string') return path;
      const text = await readText(sandbox, path, limits);
      if (typeof text !== 'string') return ok(`cannot edit ${args.path}: ${text.why}`);
      const at = text.indexOf(args.old_str);
      const count = text.split(args.old_str).length - 1;
      if (count !== 1) return ok(`old_str occurs ${count} times in ${args.path}; it must occur exactly once`);
      const w = await sandbox.tryWriteFile(
        path,
        text.slice(0, at) + args.new_str + text.slice(at + args.old_str.length),
      );
      if (w.exitCode !== 0) return ok(`cannot write ${args.path}: ${w.output.trim()}`);
      return ok(`replaced one occurrence in ${args.path} at line ${text.slice(0, at).split('\n').length}`);
    }
    case 'insert': {
      const path = await confined(sandbox, args.path);
      if (typeof path !== 'string') return path;
      const text = await readText(sandbox, path, limits);
      if (typeof text !== 'string') return ok(`cannot edit ${args.path}: ${text.why}`);
      const endsWithNewline = text === '' || text.endsWith('\n');
      const lines = text === '' ? [] : (endsWithNewline ? text.slice(0, -1) : text).split('\n');
      if (args.insert_line > lines.length)
        return ok(`${args.path} has ${lines.length} lines; insert_line must be between 0 and ${lines.length}`);
      lines.splice(args.insert_line, 0, ...args.text.replace(/\n$/, '').split('\n'));
      const w = await sandbox.tryWriteFile(path, lines.join('\n') + (endsWithNewline ? '\n' : ''));
      if (w.exitCode !== 0) return ok(`cannot write ${args.path}: ${w.output.trim()}`);
      return ok(
        `inserted ${args.text.replace(/\n$/, '').split('\n').length} line(s) after line ${args.insert_line} of ${args.path}`,
      );
    }
    case 'search': {
      const path = await confined(sandbox, args.path ?? '.');
      if (typeof path !== 'string') return path;
      const flags = [args.regex ? '-E' : '-F', ...(args.ignore_case ? ['-i'] : [])].join(' ');
      const r = await run(
        `git grep -n -I --untracked --no-color ${flags} -e ${shellQuote(args.pattern)} -- ${shellQuote(path)}`,
      );
      if (r.exitCode === 1 && !r.output.trim()) return ok(`no matches for ${JSON.stringify(args.pattern)}`);
      return ok(r.exitCode <= 1 ? r.output : `search failed: ${r.output}`);
    }
    case 'submit':
      return { output: 'submitted', submitted: true, formatError: false };
  }
}

/**
 * Resolves a path inside the repository, following symlinks; anything outside it, or inside its .git
 * directory, is refused.
 */
async function confined(sandbox: Sandbox, path: string): Promise<string | ToolOutcome> {
  const abs = posix.resolve(REPO_DIR, path);
  const inside = (p: string) =>
    (p === REPO_DIR || p.startsWith(`${REPO_DIR}/`)) && !/^\/work\/repo\/\.git(\/|$)/.test(p);
  if (!inside(abs)) return ok(`refused: ${path} is outside the repository`);
  const real = await sandbox.exec(`realpath -m -- ${shellQuote(abs)}`, { timeoutSeconds: 10, maxOutputChars: 4096 });
  const resolved = real.output.trim();
  if (real.exitCode !== 0 || !inside(resolved)) return ok(`refused: ${path} resolves outside the repository`);
  return resolved;
}

/** A file's text for an edit, or why not (missing, a directory, too large to rewrite whole). */
async function readText(sandbox: Sandbox, path: string, limits: ToolLimits): Promise<string | { why: string }> {
  const q = shellQuote(path);
  const size = await sandbox.exec(`stat -c %s -- ${q} && test -f ${q}`, { timeoutSeconds: 10, maxOutputChars: 4096 });
  if (size.exitCode !== 0) return { why: size.output.trim() || 'not a regular file' };
  if (Number(size.output.trim()) > MAX_EDIT_BYTES)
    return { why: `the file is larger than ${MAX_EDIT_BYTES} bytes; edit it with bash` };
  const r = await sandbox.exec(`cat -- ${q}`, {
    timeoutSeconds: limits.commandTimeoutSeconds,
    maxOutputChars: 2 * MAX_EDIT_BYTES,
  });
  return r.exitCode === 0 ? r.output : { why: r.output.trim() };
}

function ok(output: string): ToolOutcome {
  return { output, submitted: false, formatError: false };
}

function fail(output: string): ToolOutcome {
  return { output: `error: ${output}`, submitted: false, formatError: true };
}
