import type { Chain } from '../schemas';
import type { ChatRequest, Reply } from './fake-openai';
import { answerQueryWriter, formatName } from './scripted-queries';

export const NOTES_FILE = 'NOTES.log';

/** Which stage and step a request is at, read from the conversation itself (stateless, so retries agree). */
export function position(req: ChatRequest): { stage: number; step: number } {
  const users = req.messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'user');
  const stage = users.filter(({ m }) => /Task \d+ of \d+:/.test(m.content ?? '')).length - 1;
  const lastUser = users[users.length - 1].i;
  const step = req.messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  return { stage, step };
}

/**
 * A long, deterministic agent for durability tests and benchmarks: per stage, `notesPerStage` steps that
 * each append one numbered line to NOTES.log (so a lost or repeated step shows in the tree), then the
 * real PR patch, then submit. `outputChars` pads each reply to make transcripts as large as needed.
 * The judge always accepts.
 */
export function longRolloutScript(chain: Chain, opts: { notesPerStage: number; padChars?: number }): (req: ChatRequest) => Reply {
  const pad = opts.padChars ? ` # ${filler(opts.padChars)}` : '';
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
    return { toolCalls: [{ name: 'submit', args: { summary: `stage ${stage + 1} done` } }] };
  };
}

/** The NOTES.log lines a complete run must leave, in order. */
export function expectedNotes(stages: number, notesPerStage: number): string[] {
  const lines: string[] = [];
  for (let s = 1; s <= stages; s++) for (let n = 1; n <= notesPerStage; n++) lines.push(`stage ${s} step ${n}`);
  return lines;
}

function bash(command: string): Reply {
  return { toolCalls: [{ name: 'bash', args: { command } }] };
}

/** Prose-like padding (words and spaces), tokenized the way real transcripts are. */
function filler(chars: number): string {
  const words = ['carry', 'stage', 'patch', 'median', 'review', 'tests', 'tree', 'commit', 'value', 'order', 'list', 'even'];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${words[(i * 7 + (i >> 3)) % words.length]} `;
  return out.slice(0, chars);
}
