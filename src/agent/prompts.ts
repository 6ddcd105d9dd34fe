import { prompt } from '../model/prompt-files';
import type { Carry, ChainQueries } from '../schemas';

/**
 * Written for long, multi-stage work: what carries over between tasks, how to work, what is limited
 * (src/model/prompts/agent/system.md). `environment` says what is true of the sandbox's environment.
 */
export function systemPrompt(environment: string): string {
  return prompt('agent', 'system', { environment });
}

/** The same work under the bash scaffold: one ```bash block per reply and a completion marker (src/model/prompts/agent/system-bash.md). */
export function bashSystemPrompt(environment: string): string {
  return prompt('agent', 'system-bash', { environment });
}

export function stageMessage(queries: ChainQueries, stage: number, carry: Carry): string {
  const parts: string[] = [];
  if (stage === 0) parts.push(`Overview of the work ahead:\n${queries.overview}`);
  parts.push(`Task ${stage + 1} of ${queries.stages.length}:\n${queries.stages[stage].text}`);
  if (carry.conflicts.length) {
    parts.push(
      `Note: your earlier changes conflicted with upstream changes in ${carry.conflicts.join(', ')}. ` +
        'Both versions are kept there between conflict markers (a binary file keeps your version); resolve them as part of this task.',
    );
  }
  return parts.join('\n\n');
}

export function feedbackMessage(feedback: string): string {
  return `A reviewer compared your submission with what the task needs and did not accept it yet:\n${feedback}\n\nPlease address this and submit again.`;
}
