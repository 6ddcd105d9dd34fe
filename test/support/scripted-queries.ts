import type { ChatRequest, Reply } from './fake-openai';

/** The name of the JSON schema a request asks for ('verdict', 'stage_query', 'chain_overview'), if any. */
export function formatName(req: ChatRequest): string | undefined {
  return (req.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
}

/**
 * Plain, leak-free answers for the query writer, so scripted tests can focus on the agent and judge.
 * Undefined when the request is not one of the query writer's.
 */
export function answerQueryWriter(req: ChatRequest): Reply | undefined {
  switch (formatName(req)) {
    case 'stage_query':
      return {
        content: JSON.stringify({
          intent: 'Users need this part of the statistics package to behave correctly for the case this change is about.',
          locus: 'The small statistics module of the package.',
          logic: 'Handle the described case in the existing helper and cover it with a test.',
          directive: 'Make the package behave as described and keep the existing tests passing.',
        }),
      };
    case 'chain_overview':
      return { content: JSON.stringify({ overview: 'A series of related improvements to a small statistics package.' }) };
    default:
      return undefined;
  }
}
