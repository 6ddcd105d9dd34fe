import { z } from 'zod';

const path = z.string().min(1).describe('Path relative to the repository root');

/** The agent's tools: the zod schemas validate each call and generate the declarations the model sees. */
export const TOOL_ARGS = {
  bash: z.object({ command: z.string().min(1).describe('A bash command, run in the repository root') }),
  view_file: z.object({
    path,
    start_line: z.number().int().positive().optional().describe('First line to show (1-based)'),
    end_line: z.number().int().positive().optional().describe('Last line to show'),
  }),
  create_file: z.object({ path, content: z.string() }),
  str_replace: z.object({
    path,
    old_str: z.string().min(1).describe('Exact text to replace; must occur exactly once'),
    new_str: z.string(),
  }),
  insert: z.object({
    path,
    insert_line: z.number().int().nonnegative().describe('The text goes after this line; 0 puts it at the top'),
    text: z.string().min(1),
  }),
  search: z.object({
    pattern: z.string().min(1),
    path: z.string().optional().describe('A file or directory to search in (default: the whole repository)'),
    regex: z.boolean().optional().describe('Treat the pattern as an extended regular expression (default: plain text)'),
    ignore_case: z.boolean().optional(),
  }),
  submit: z.object({ summary: z.string().describe('What you changed and why') }),
} as const;
export type ToolName = keyof typeof TOOL_ARGS;

const DESCRIPTIONS: Record<ToolName, string> = {
  bash:
    'Run a bash command in the repository root (no network; a time limit applies). Long output keeps its beginning and end; ' +
    'a note says how many characters were cut from the middle.',
  view_file: 'Show a file with line numbers, optionally only a line range; a directory is listed.',
  create_file: 'Create a file, or overwrite it whole, with the given content.',
  str_replace:
    'Replace one exact occurrence of old_str with new_str in a file. old_str must occur exactly once; include enough context.',
  insert: 'Insert text after a given line of a file (0: at the top).',
  search: 'Search the repository (tracked and new files, not ignored ones) for text; prints file:line:match.',
  submit: 'Finish this task: your working tree is taken as your answer.',
};

/** OpenAI `tools` declarations, generated from the same zod schemas that validate the calls. */
export const TOOL_SPECS = (Object.keys(TOOL_ARGS) as ToolName[]).map((name) => ({
  type: 'function' as const,
  function: {
    name,
    description: DESCRIPTIONS[name],
    parameters: z.toJSONSchema(TOOL_ARGS[name]) as Record<string, unknown>,
  },
}));
