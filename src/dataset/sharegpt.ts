import { ShareGptSampleSchema, type Message, type ShareGptSample, type TrainingSample } from '../schemas';

type Turn = ShareGptSample['conversations'][number];

function parseArguments(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/**
 * The ShareGPT-style variant with LLaMA-Factory's role names: user → human, assistant text → gpt, each
 * tool call → function_call ({"name", "arguments"}) directly followed by its result → observation. The
 * system prompt and the tools (a JSON string) are columns of their own. The bare "submitted"
 * acknowledgement before a new user turn or at the end is dropped: it says nothing, and without it
 * human and observation turns keep alternating with gpt and function_call turns.
 */
export function toShareGpt(sample: TrainingSample): ShareGptSample {
  const system = sample.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const results = new Map<string, string>();
  for (const m of sample.messages) if (m.role === 'tool') results.set(m.tool_call_id, m.content);
  const conversations: Turn[] = [];
  sample.messages.forEach((m: Message, i) => {
    if (m.role === 'user') conversations.push({ from: 'human', value: m.content });
    if (m.role !== 'assistant') return;
    if (m.content) conversations.push({ from: 'gpt', value: m.content });
    for (const call of m.tool_calls ?? []) {
      conversations.push({
        from: 'function_call',
        value: JSON.stringify({ name: call.function.name, arguments: parseArguments(call.function.arguments) }),
      });
      const result = results.get(call.id);
      const next = sample.messages.slice(i + 1).find((n) => n.role !== 'tool');
      const acknowledgement = call.function.name === 'submit' && (!next || next.role === 'user');
      if (result !== undefined && !acknowledgement) conversations.push({ from: 'observation', value: result });
    }
  });
  const tools = sample.tools ? { tools: JSON.stringify(sample.tools) } : {};
  return ShareGptSampleSchema.parse({ id: sample.id, system, ...tools, conversations, metadata: sample.metadata });
}
