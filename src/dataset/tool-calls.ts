import type { Message } from '../schemas';

/** Names of the tools a row declares in its `tools` field. */
export function declaredTools(tools: unknown[]): Set<string> {
  return new Set(
    tools.map((t) => (t as { function?: { name?: string } }).function?.name).filter((n): n is string => !!n),
  );
}

/**
 * What makes a row unusable for tool-calling SFT: a call to a tool the row does not declare, a tool
 * result answering no call, or a call left without a result. A row without `tools` (bash scaffold)
 * declares nothing, so any tool call or result in it is a problem.
 */
export function toolCallProblems(messages: Message[], tools: unknown[] = []): string[] {
  const declared = declaredTools(tools);
  const problems: string[] = [];
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) {
        if (!declared.has(call.function.name)) problems.push(`calls undeclared tool "${call.function.name}"`);
        open.add(call.id);
      }
    } else if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id)) problems.push(`tool result ${m.tool_call_id} answers no call`);
    }
  }
  for (const id of open) problems.push(`tool call ${id} has no result`);
  return problems;
}
