import { z } from 'zod';

/** The response format asking for JSON that matches `schema` (strict json_schema). */
export function jsonFormat(format: { name: string; schema: z.ZodType }) {
  return {
    type: 'json_schema' as const,
    json_schema: { name: format.name, strict: true, schema: z.toJSONSchema(format.schema) as Record<string, unknown> },
  };
}

/** A reply checked against its schema: the value, or what was wrong with it in a sentence. */
export function parseJsonReply<T>(content: string, schema: z.ZodType<T>): { value: T } | { problem: string } {
  let json: unknown;
  try {
    // Endpoints without strict structured output often wrap the JSON in a Markdown fence.
    json = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return { problem: `it is not valid JSON (${JSON.stringify(content.slice(0, 120))})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return { problem: `it does not match the schema (${issues.join('; ')})` };
}
