import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { InputError } from '../errors';
import { pauseSignal, resumeSignal } from '../workflows/messages';

type ControlAction = 'pause' | 'resume' | 'cancel';

/** Pause, resume or cancel a running chain (or batch), with a clear word when that cannot be done. */
export async function controlCommand(client: Client, action: ControlAction, workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new InputError(`no chain or batch with id ${workflowId}`);
    throw err;
  }
  if (status !== 'RUNNING') {
    throw new InputError(`${workflowId} has already finished (${status.toLowerCase()}): there is nothing to ${action}`);
  }
  if (action === 'pause') await handle.signal(pauseSignal);
  else if (action === 'resume') await handle.signal(resumeSignal);
  else await handle.cancel();
  const done = {
    pause: 'pausing: the agent stops within seconds and resumes from its last saved step',
    resume: 'resumed',
    cancel: 'cancelling; its sandboxes will be removed',
  };
  console.log(`${workflowId}: ${done[action]}`);
}
