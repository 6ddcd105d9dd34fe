import { activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { AgentStopped } from '../agent/loop';
import { toActivityFailure } from '../activity-failure';

/**
 * Runs an activity's body: heartbeats on a timer when the activity has a heartbeat timeout (the chain
 * gives every activity one, workflows/activity-table.ts), so a killed worker is noticed within that
 * timeout; a stop the workflow asked for becomes a cancellation, and any other error the Temporal
 * failure its kind calls for (activity-failure.ts).
 */
export async function guard<T>(fn: () => Promise<T>, beat: () => void = () => heartbeat()): Promise<T> {
  const timeoutMs = activityInfo().heartbeatTimeoutMs;
  const timer = timeoutMs ? setInterval(beat, timeoutMs / 3) : undefined;
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AgentStopped || cancellationSignal().aborted)
      throw new CancelledFailure('stopped: the workflow asked this round to stop');
    throw toActivityFailure(err);
  } finally {
    clearInterval(timer);
  }
}
