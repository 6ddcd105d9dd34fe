import type { WorkflowHandle } from '@temporalio/client';

/** A one-line account of a workflow's history: events, activities by type, bytes. */
export async function historySummary(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const activities = new Map<string, number>();
  for (const e of events) {
    const type = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) activities.set(type, (activities.get(type) ?? 0) + 1);
  }
  const bytes = Buffer.byteLength(JSON.stringify(history));
  const list = [...activities].map(([name, n]) => `${name} ×${n}`).join(', ');
  return `${events.length} events, ${(bytes / 1024).toFixed(1)} KiB; activities: ${list}`;
}
