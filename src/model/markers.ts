/**
 * Who is calling the model and where in a chain: sent with every request as plain HTTP headers, so a
 * log line or a scripted test endpoint can tell the calls apart without reading prompt wording. They
 * hold a caller name and small numbers only, never a secret; real endpoints ignore unknown headers.
 * Stage, round and step count from 0.
 */
export type Caller = 'agent' | 'judge' | 'query-writer' | 'link-judge' | 'setup-agent';

export interface CallMarker {
  caller: Caller;
  stage?: number;
  round?: number;
  /** The agent's step within its round. */
  step?: number;
}

const PREFIX = 'x-chainsmith-';
const NUMBERS = ['stage', 'round', 'step'] as const;
const CALLERS: readonly string[] = ['agent', 'judge', 'query-writer', 'link-judge', 'setup-agent'] satisfies Caller[];

export function markerHeaders(marker: CallMarker): Record<string, string> {
  const headers: Record<string, string> = { [`${PREFIX}caller`]: marker.caller };
  for (const key of NUMBERS) if (marker[key] !== undefined) headers[`${PREFIX}${key}`] = String(marker[key]);
  return headers;
}

/** The marker of a request, from its headers (lower-case names, as Node gives them); undefined when it has none. */
export function readMarker(headers: Record<string, string | string[] | undefined>): CallMarker | undefined {
  const caller = headers[`${PREFIX}caller`];
  if (typeof caller !== 'string' || !CALLERS.includes(caller)) return undefined;
  const marker: CallMarker = { caller: caller as Caller };
  for (const key of NUMBERS) {
    const value = Number(headers[`${PREFIX}${key}`] ?? NaN);
    if (Number.isInteger(value) && value >= 0) marker[key] = value;
  }
  return marker;
}
