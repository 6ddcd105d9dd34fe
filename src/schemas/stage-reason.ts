import { z } from 'zod';

/**
 * Why gold validation could not verify a stage, by kind (issue 25):
 * - `dependencies-unresolvable`: the stage's dependencies cannot be resolved or fetched (a conflict, a
 *   package the registry lacks, a requirement line no resolver parses);
 * - `build-failed`: the environment's setup failed in the build container;
 * - `tests-not-runnable`: the PR's tests ran but reported nothing usable (collection errors, a runner
 *   missing from the image), or the stage's tree could not be checked out for them;
 * - `no-verifying-test`: the tests ran, and none fails before the PR and passes after it;
 * - `flaky`: the PR's tests gave different outcomes on reruns of the same tree;
 * - `timeout`: a build or test command ran past its limit;
 * - `unsupported`: something chainsmith cannot run here (a `git://` or `svn+` requirement, a Python or
 *   toolchain that cannot be had, a layout no recipe knows);
 * - `invalid-inputs`: the stage itself is broken (its base commit is missing from the clone, its gold
 *   patch does not apply).
 */
export const STAGE_REASON_KINDS = [
  'dependencies-unresolvable',
  'build-failed',
  'tests-not-runnable',
  'no-verifying-test',
  'flaky',
  'timeout',
  'unsupported',
  'invalid-inputs',
] as const;
export const StageReasonKind = z.enum(STAGE_REASON_KINDS);
export type StageReasonKind = z.infer<typeof StageReasonKind>;

/** Bounds of a reason's parts: a record per stage stays small in --out, in Temporal's history and in the report. */
export const REASON_LIMITS = { summary: 300, command: 400, tailLines: 20, tailChars: 2_000 } as const;

/**
 * One stage's reason, whole: what happened in a line, and where a command failed, that command, its
 * exit code and the last lines of its output. Built only through stageReason (src/stage-reason.ts),
 * which redacts and bounds every part.
 */
export const StageReasonSchema = z.object({
  kind: StageReasonKind,
  summary: z.string(),
  /** The command that failed, as it ran (absent where none did: a PR that changes no test). */
  command: z.string().optional(),
  /** Its exit code; a command killed at its time limit has the code its runner reports for that. */
  exitCode: z.number().int().optional(),
  /** The last lines of its output. */
  tail: z.string().optional(),
});
export type StageReason = z.infer<typeof StageReasonSchema>;
