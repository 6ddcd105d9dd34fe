import type { Message, SampleTokens } from '../schemas';

type Encode = typeof import('gpt-tokenizer/cjs/encoding/o200k_base').encode;
let encode: Encode | undefined;

/**
 * OpenAI's o200k_base BPE, shipped inside gpt-tokenizer: counting needs no download. (js-tiktoken gives
 * the same tokens, but builds its table in 0.9 CPU-seconds on a worker's first export, stalling every
 * activity and workflow of that worker meanwhile; this loads in 0.2 s and encodes about 4 times faster.)
 * It is loaded at the first count: a worker or a command that never builds a sample never pays for it.
 */
export const TOKENIZER = 'o200k_base';

/** Transcripts may contain "<|endoftext|>" as plain text: it is encoded as text, not refused as special. */
const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/** The token ids of `text` under TOKENIZER. */
export function tokenIds(text: string): number[] {
  encode ??= (require('gpt-tokenizer/cjs/encoding/o200k_base') as { encode: Encode }).encode;
  return encode(text, AS_TEXT);
}

export function countTokens(text: string): number {
  return text ? tokenIds(text).length : 0;
}

/**
 * Tokens of a sample as a model reads and writes it: message texts, tool-call names and arguments,
 * and the tool declarations once. Role markers and other chat-template tokens depend on the trainer's
 * template and are not counted.
 */
export function sampleTokens(messages: Message[], tools: unknown[]): SampleTokens {
  let total = 0;
  let assistant = 0;
  for (const m of messages) {
    let n = countTokens(m.content ?? '');
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? [])
        n += countTokens(call.function.name) + countTokens(call.function.arguments);
      assistant += n;
    }
    total += n;
  }
  const declared = tools.length ? countTokens(JSON.stringify(tools)) : 0;
  return { total: total + declared, assistant, tools: declared, tokenizer: TOKENIZER };
}
