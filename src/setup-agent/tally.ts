import type { SetupOutcome } from '../schemas';

/** What the setup agent did for one repository in a run: stages, attempts, tokens and cost. */
export interface SetupTally {
  repo: string;
  /** Stages whose detected recipe failed and that the setup agent was asked about. */
  stages: number;
  /** Verified with a recipe the agent proposed in this run. */
  rescued: number;
  /** Verified with a recipe saved earlier, without a model call. */
  fromSaved: number;
  failed: number;
  modelUnavailable: number;
  /** Recipes proposed for the rescued stages (the attempts that succeeded included). */
  rescuedAttempts: number;
  /** Tokens spent on the rescued stages' conversations. */
  rescuedTokens: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Absent while any request had no price. */
  costUsd?: number;
}

/** Adds one stage's outcome to its repository's tally. */
export function countStage(tallies: Map<string, SetupTally>, repo: string, s: SetupOutcome): void {
  let t = tallies.get(repo);
  if (!t)
    tallies.set(
      repo,
      (t = {
        repo,
        stages: 0,
        rescued: 0,
        fromSaved: 0,
        failed: 0,
        modelUnavailable: 0,
        rescuedAttempts: 0,
        rescuedTokens: 0,
        requests: 0,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
      }),
    );
  t.stages += 1;
  if (s.outcome === 'rescued') {
    t.rescued += 1;
    t.rescuedAttempts += s.attempts;
    t.rescuedTokens += s.promptTokens + s.completionTokens;
  }
  if (s.outcome === 'saved-recipe') t.fromSaved += 1;
  if (s.outcome === 'failed') t.failed += 1;
  if (s.outcome === 'model-unavailable') t.modelUnavailable += 1;
  t.requests += s.requests;
  t.promptTokens += s.promptTokens;
  t.completionTokens += s.completionTokens;
  // A request without a price makes the repository's cost unknown, not smaller.
  if (s.requests && s.costUsd === undefined) delete t.costUsd;
  else if (t.costUsd !== undefined) t.costUsd += s.costUsd ?? 0;
}

/** `validate`'s lines for the setup agent, one per repository it was asked about. */
export function describeSetup(tallies: Iterable<SetupTally>, model: string): string[] {
  return [...tallies].map((t) => {
    const cost = t.costUsd === undefined ? 'cost unknown: no price for the model' : `$${t.costUsd.toFixed(4)}`;
    const rest = [
      t.failed ? `${t.failed} not rescued` : '',
      t.modelUnavailable ? `${t.modelUnavailable} not set up (model unavailable)` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return (
      `setup agent (${model}) on ${t.repo}: ${t.stages} stage(s) detection could not set up; ${t.rescued} rescued now, ${t.fromSaved} by a saved recipe` +
      `${rest ? `, ${rest}` : ''}; ${t.promptTokens + t.completionTokens} tokens in ${t.requests} requests (${cost})`
    );
  });
}
