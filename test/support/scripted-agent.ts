import { SUBMIT_MARKER } from '../../src/agent/bash-scaffold';
import type { Chain, ScaffoldKind } from '../../src/schemas';
import type { ChatRequest, Reply } from './fake-openai';
import { answerQueryWriter, formatName } from './scripted-queries';

export const NOTES_FILE = 'NOTES.log';

/** A task or the reviewer's feedback: where a round's steps start counting. */
const INSTRUCTION = /^(Overview of the work ahead|Task \d+ of \d+:|A reviewer)/;

/**
 * Which stage and step a request is at, read from the conversation itself (stateless, so retries
 * agree). Steps count from the last task or feedback turn, not the last user turn: under the bash
 * scaffold every command's output is a user turn too.
 */
export function position(req: ChatRequest): { stage: number; step: number } {
  const users = req.messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'user');
  const stage = users.filter(({ m }) => /Task \d+ of \d+:/.test(m.content ?? '')).length - 1;
  const lastInstruction = users.filter(({ m }) => INSTRUCTION.test(m.content ?? '')).at(-1)!.i;
  const step = req.messages.slice(lastInstruction + 1).filter((m) => m.role === 'assistant').length;
  return { stage, step };
}

/**
 * A long, deterministic agent for durability tests and benchmarks: per stage, `notesPerStage` steps that
 * each append one numbered line to NOTES.log (so a lost or repeated step shows in the tree), then the
 * real PR patch, then submit, as tool calls or (scaffold 'bash') as one ```bash block per reply.
 * `padChars` pads each reply to make transcripts as large as needed. The judge always accepts.
 */
export function longRolloutScript(chain: Chain, opts: { notesPerStage: number; padChars?: number; scaffold?: ScaffoldKind }): (req: ChatRequest) => Reply {
  const pad = opts.padChars ? ` # ${filler(opts.padChars)}` : '';
  const bash = opts.scaffold === 'bash' ? bashBlock : bashTool;
  return (req) => {
    const query = answerQueryWriter(req);
    if (query) return query;
    if (formatName(req) === 'verdict') return { content: JSON.stringify({ score: 0.9, feedback: 'Matches the reference.' }) };
    const { stage, step } = position(req);
    if (step < opts.notesPerStage) {
      return bash(`echo "stage ${stage + 1} step ${step + 1}" >> ${NOTES_FILE}${pad}`);
    }
    if (step === opts.notesPerStage) {
      return bash(`git apply --3way - <<'CHAINSMITH_PATCH_END'\n${chain.prs[stage].patch}CHAINSMITH_PATCH_END`);
    }
    if (opts.scaffold === 'bash') return bashBlock(`echo ${SUBMIT_MARKER} && echo 'stage ${stage + 1} done'`);
    return { toolCalls: [{ name: 'submit', args: { summary: `stage ${stage + 1} done` } }] };
  };
}

/** The NOTES.log lines a complete run must leave, in order. */
export function expectedNotes(stages: number, notesPerStage: number): string[] {
  const lines: string[] = [];
  for (let s = 1; s <= stages; s++) for (let n = 1; n <= notesPerStage; n++) lines.push(`stage ${s} step ${n}`);
  return lines;
}

function bashTool(command: string): Reply {
  return { toolCalls: [{ name: 'bash', args: { command } }] };
}

function bashBlock(command: string): Reply {
  return { content: `\`\`\`bash\n${command}\n\`\`\`` };
}

/** Prose-like padding (words and spaces), tokenized the way real transcripts are. */
function filler(chars: number): string {
  const words = ['carry', 'stage', 'patch', 'median', 'review', 'tests', 'tree', 'commit', 'value', 'order', 'list', 'even'];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${words[(i * 7 + (i >> 3)) % words.length]} `;
  return out.slice(0, chars);
}
