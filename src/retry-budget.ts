/**
 * Every retry layer's count in one place, and the worst cases they multiply to (docs/retries.md says
 * why each layer is there). Each layer reads its count from here; test/retry-budget.test.ts counts the
 * requests a judge activity really makes against the worst case below. Pure constants: workflow code
 * (workflows/activity-table.ts) imports this file too.
 */

/**
 * Tries of one model request inside a Temporal activity: one. A failed request (timeout, 5xx, 429)
 * fails the activity, and Temporal's retry of the activity is the only retry, so the layers do not
 * multiply. The link judge's client retries instead, config model.retries (`mine --judge-links`, and
 * scheduled mines, where a pair the model cannot answer stops the judging, never the activity), as
 * does `validate`'s for the setup agent (a stage the model cannot answer is marked, the run goes on).
 */
export const MODEL_TRIES_IN_ACTIVITY = 1;

/** Asks of the judge for a valid verdict in one conversation: a malformed reply is pointed out and asked again. */
export const JUDGE_ASKS = 3;
/** Asks of the link judge (mine --judge-links) for a valid verdict on one pair. */
export const LINK_JUDGE_ASKS = 3;
/** Tries of the query writer for one query: a malformed or leaking reply is pointed out and asked again. */
export const QUERY_WRITER_TRIES = 4;

/** Recipes the setup agent proposes for one stage at most, by default (config environments.setupAttempts). */
export const SETUP_AGENT_ATTEMPTS = 3;
/**
 * Model calls one recipe of the setup agent may take, reads included: the agent reads a few files, not
 * the whole repository. A recipe it has not proposed by then ends the stage's attempts (NoRecipeError).
 */
export const SETUP_AGENT_STEPS = 16;

/** Temporal attempts of an activity (workflows/activity-table.ts). */
export const ACTIVITY_ATTEMPTS = {
  /** Model calls and sandbox work (judgeStage, synthesizeQueries, validateGold). */
  backoff: 5,
  /** Reading and writing files (cutChain, exportSample, batchPage). */
  quick: 5,
  /** A rollout round, which resumes from its last step: attempts add up over a long round. */
  rolloutRound: 30,
  cleanupRun: 3,
  mineForSchedule: 3,
} as const;

/** Octokit's retries of one GitHub request that failed with 5xx or a network error (plugin-retry). */
export const GITHUB_ERROR_RETRIES = 3;
/** Octokit's retries of one GitHub request that hit a rate limit, each after waiting it out (plugin-throttling). */
export const GITHUB_RATE_LIMIT_RETRIES = 3;

/** Attempts of a failed scheduled run (the schedule's workflow retry policy; `schedule create --attempts`). */
export const SCHEDULE_RUN_ATTEMPTS = 3;

/** Model requests one judgeStage activity can make: every ask, every Temporal attempt. */
export const JUDGE_STAGE_WORST_REQUESTS = JUDGE_ASKS * MODEL_TRIES_IN_ACTIVITY * ACTIVITY_ATTEMPTS.backoff;
/** Model requests for one query (or the overview) of a synthesizeQueries activity: written queries are kept, a retry asks only for the rest. */
export const QUERY_WORST_REQUESTS = QUERY_WRITER_TRIES * MODEL_TRIES_IN_ACTIVITY * ACTIVITY_ATTEMPTS.backoff;
/** Model requests for one agent step of a rollout round: a retry resumes at the step that failed. */
export const AGENT_STEP_WORST_REQUESTS = MODEL_TRIES_IN_ACTIVITY * ACTIVITY_ATTEMPTS.rolloutRound;
/** Model requests for one pair the link judge asks about, with `modelRetries` (config model.retries) tries per request. */
export const linkJudgeWorstRequests = (modelRetries: number) => LINK_JUDGE_ASKS * modelRetries;
/**
 * Model requests the setup agent makes for one stage with `attempts` recipes and `modelTries` tries per
 * request: every recipe read to its last step. A model failure left after its tries ends the stage's
 * agent (marked model-unavailable), so nothing above the client retries a model request.
 */
export const setupAgentWorstRequests = (attempts: number, modelTries: number) =>
  attempts * SETUP_AGENT_STEPS * modelTries;
/**
 * The same in a worker's validateGold activity: one try per request, and each Temporal retry of the
 * activity (a crash, a build the engine failed) resumes from the progress saved after every reply, so
 * it asks again at most the one request that was in flight.
 */
export const SETUP_AGENT_STAGE_WORST_REQUESTS =
  setupAgentWorstRequests(SETUP_AGENT_ATTEMPTS, MODEL_TRIES_IN_ACTIVITY) +
  (ACTIVITY_ATTEMPTS.backoff - 1) * MODEL_TRIES_IN_ACTIVITY;
/** Tries of one GitHub request in `chainsmith mine`: the first, and each plugin's retries (counted on the wire by test/mining/landings/github-tries.test.ts). */
export const GITHUB_REQUEST_TRIES = 1 + GITHUB_ERROR_RETRIES + GITHUB_RATE_LIMIT_RETRIES;
/** Tries of one GitHub request in a scheduled run's mine: Octokit's, every attempt of the activity, every attempt of the run. */
export const GITHUB_REQUEST_WORST_TRIES =
  GITHUB_REQUEST_TRIES * ACTIVITY_ATTEMPTS.mineForSchedule * SCHEDULE_RUN_ATTEMPTS;
