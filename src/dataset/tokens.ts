import { getEncoding, type Tiktoken } from 'js-tiktoken';
import type { Message, SampleTokens } from '../schemas';

/** OpenAI's o200k_base BPE, shipped inside js-tiktoken: counting needs no download. */
export const TOKENIZER = 'o200k_base';

let encoder: Tiktoken | undefined;

export function countTokens(text: string): number {
  encoder ??= getEncoding(TOKENIZER);
  // Transcripts may contain "<|endoftext|>" as plain text; it is counted as text, not refused as special.
  return text ? encoder.encode(text, [], []).length : 0;
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
      for (const call of m.tool_calls ?? []) n += countTokens(call.function.name) + countTokens(call.function.arguments);
      assistant += n;
    }
    total += n;
  }
  const declared = tools.length ? countTokens(JSON.stringify(tools)) : 0;
  return { total: total + declared, assistant, tools: declared, tokenizer: TOKENIZER };
}
