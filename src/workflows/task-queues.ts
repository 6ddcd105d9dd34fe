/** Workflows and light activities (judge, export). */
export const ORCHESTRATION_QUEUE = 'chainsmith';

/** Activities that need a Docker engine go to the sandbox queue paired with the workflow's queue. */
export function sandboxQueue(orchestrationQueue: string): string {
  return `${orchestrationQueue}-sandbox`;
}
