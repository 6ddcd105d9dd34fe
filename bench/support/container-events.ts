import type Docker from 'dockerode';

/** A container event as Docker's event stream sends it (older engines say `status` where newer say `Action`). */
export interface ContainerEvent {
  id: string;
  status?: string;
  Action?: string;
  timeNano?: number;
  Actor?: { Attributes?: Record<string, string> };
}

export type EventStream = NodeJS.ReadableStream & { destroy?: () => void };

/**
 * Docker's event stream for containers, filtered on `events` and `labels` (replayed from `since`,
 * seconds since the epoch, where given), each event handed to `onEvent` as it comes: the stream
 * sends one JSON object a line, and a chunk may end inside one.
 */
export async function containerEvents(
  docker: Docker,
  filter: { events: string[]; labels: string[]; since?: number },
  onEvent: (event: ContainerEvent) => void,
): Promise<EventStream> {
  const filters = JSON.stringify({ type: ['container'], event: filter.events, label: filter.labels });
  const opts = filter.since === undefined ? { filters } : { filters, since: filter.since };
  const stream = (await docker.getEvents(opts as object)) as EventStream;
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines.filter((l) => l.trim())) onEvent(JSON.parse(line) as ContainerEvent);
  });
  return stream;
}
