import { SUBMIT_MARKER } from '../../src/agent/bash-scaffold';
import type { CallMarker } from '../../src/model/markers';
import type { Chain, ScaffoldKind } from '../../src/schemas';
import type { ChatRequest, Reply, Script } from './fake-openai';

/** One call of the agent: where it is, from the call's marker (0-based), and what it was sent. */
export interface AgentCall {
  stage: number;
  round: number;
  /** Steps this round took before this call. */
  step: number;
  request: ChatRequest;
}

/** One call of the judge: the stage judged and how many verdicts were asked for before (0-based). */
export interface JudgeCall {
  stage: number;
  n: number;
  request: ChatRequest;
}

export const ACCEPT = { score: 0.9, feedback: 'Matches the reference.' };

/**
 * The scripted model every test and benchmark talks to through FakeOpenAI: it tells the agent, the
 * judge and the query writer apart, and the agent's stage, round and step, by the markers the real
 * client sends with each call (src/model/markers.ts), so rewording a prompt cannot break it. The judge
 * accepts and the query writer writes plain, leak-free queries unless told otherwise. Stateless
 * except for the judge's count, so a retried call gets the same reply.
 */
export function scriptedModel(parts: {
  agent: (call: AgentCall) => Reply;
  judge?: (call: JudgeCall) => Reply;
}): Script {
  let judged = 0;
  return (request, marker) => {
    if (!marker) throw new Error('a model request without chainsmith markers');
    if (marker.caller === 'query-writer') return queryWriterReply(marker);
    if (marker.caller === 'judge') {
      const call = { stage: marker.stage ?? 0, n: judged++, request };
      return parts.judge ? parts.judge(call) : { content: JSON.stringify(ACCEPT) };
    }
    return parts.agent({ stage: marker.stage ?? 0, round: marker.round ?? 0, step: marker.step ?? 0, request });
  };
}

/** Only the agent's calls take `ms`: the judge and the query writer answer at once. */
export function agentLatency(ms: number): (req: ChatRequest, marker: CallMarker | undefined) => number {
  return (_req, marker) => (marker?.caller === 'agent' ? ms : 0);
}

/** Plain, leak-free queries: one per stage, and the chain's overview (the call without a stage). */
function queryWriterReply(marker: CallMarker): Reply {
  if (marker.stage === undefined)
    return { content: JSON.stringify({ overview: 'A series of related improvements to a small statistics package.' }) };
  return {
    content: JSON.stringify({
      intent: 'Users need this part of the statistics package to behave correctly for the case this change is about.',
      locus: 'The small statistics module of the package.',
      logic: 'Handle the described case in the existing helper and cover it with a test.',
      directive: 'Make the package behave as described and keep the existing tests passing.',
    }),
  };
}

export const NOTES_FILE = 'NOTES.log';

/**
 * A long, deterministic agent for durability tests and benchmarks: per stage, `notesPerStage` steps that
 * each append one numbered line to NOTES.log (so a lost or repeated step shows in the tree), then the
 * real PR patch, then submit, as tool calls or (scaffold 'bash') as one ```bash block per reply.
 * `padChars` pads each reply to make transcripts as large as needed. The judge always accepts.
 */
export function longRolloutScript(
  chain: Chain,
  opts: { notesPerStage: number; padChars?: number; scaffold?: ScaffoldKind },
): Script {
  const pad = opts.padChars ? ` # ${filler(opts.padChars)}` : '';
  const bash = opts.scaffold === 'bash' ? bashBlock : bashTool;
  return scriptedModel({
    agent: ({ stage, step }) => {
      if (step < opts.notesPerStage) return bash(`echo "stage ${stage + 1} step ${step + 1}" >> ${NOTES_FILE}${pad}`);
      if (step === opts.notesPerStage)
        return bash(`git apply --3way - <<'CHAINSMITH_PATCH_END'\n${chain.prs[stage].patch}CHAINSMITH_PATCH_END`);
      if (opts.scaffold === 'bash') return bashBlock(`echo ${SUBMIT_MARKER} && echo 'stage ${stage + 1} done'`);
      return { toolCalls: [{ name: 'submit', args: { summary: `stage ${stage + 1} done` } }] };
    },
  });
}

/** The NOTES.log lines a patch adds (a cumulative patch holds every stage's), in order. */
export function notesIn(patch: string): string[] {
  const section = patch.split(/^diff --git /m).find((s) => s.startsWith(`a/${NOTES_FILE} `)) ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('+stage'))
    .map((l) => l.slice(1));
}

/** The NOTES.log lines a complete run must leave, in order. */
export function expectedNotes(stages: number, notesPerStage: number): string[] {
  const lines: string[] = [];
  for (let s = 1; s <= stages; s++) for (let n = 1; n <= notesPerStage; n++) lines.push(`stage ${s} step ${n}`);
  return lines;
}

export function bashTool(command: string): Reply {
  return { toolCalls: [{ name: 'bash', args: { command } }] };
}

export function bashBlock(command: string): { content: string } {
  return { content: `\`\`\`bash\n${command}\n\`\`\`` };
}

/** Prose-like padding (words and spaces), tokenized the way real transcripts are. */
function filler(chars: number): string {
  const words = [
    'carry',
    'stage',
    'patch',
    'median',
    'review',
    'tests',
    'tree',
    'commit',
    'value',
    'order',
    'list',
    'even',
  ];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${words[(i * 7 + (i >> 3)) % words.length]} `;
  return out.slice(0, chars);
}
