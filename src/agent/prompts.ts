import type { Carry, ChainQueries } from '../schemas';

export const SYSTEM_PROMPT = `You are a software engineer working in a real repository over several consecutive tasks.
Each task continues from the state you left: your earlier changes are already in the working tree.
The repository is at /work/repo. You have no network access.
Work in small steps: look at the code, make focused changes, run the tests, and call submit when the task is done.
If a reviewer sends feedback after you submit, address it and submit again.`;

export function stageMessage(queries: ChainQueries, stage: number, carry: Carry): string {
  const parts: string[] = [];
  if (stage === 0) parts.push(`Overview of the work ahead:\n${queries.overview}`);
  parts.push(`Task ${stage + 1} of ${queries.stages.length}:\n${queries.stages[stage].text}`);
  if (carry.conflicts.length) {
    parts.push(
      `Note: your earlier changes conflicted with upstream changes in ${carry.conflicts.join(', ')}. ` +
        'Both versions are kept there between conflict markers; resolve them as part of this task.',
    );
  }
  return parts.join('\n\n');
}

export function feedbackMessage(feedback: string): string {
  return `A reviewer compared your submission with what the task needs and did not accept it yet:\n${feedback}\n\nPlease address this and submit again.`;
}
