/** Workflows and light activities (judge, export). */
export const ORCHESTRATION_QUEUE = 'chainsmith';

/** Activities that need a Docker engine go to the sandbox queue paired with the workflow's queue. */
export function sandboxQueue(orchestrationQueue: string): string {
  return `${orchestrationQueue}-sandbox`;
}

/** Each sandbox worker also serves a queue of its own host, for work that must reach that host's engine. */
export function hostQueue(orchestrationQueue: string, host: string): string {
  return `${sandboxQueue(orchestrationQueue)}@${host}`;
}
