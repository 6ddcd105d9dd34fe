import { z } from 'zod';
import { StageReasonSchema } from './stage-reason';
import { SetupOutcomeSchema } from './setup-outcome';

/** One test's outcome, as the test runner reported it (pytest's short summary). */
export const TestCaseSchema = z.object({
  id: z.string(),
  outcome: z.enum(['passed', 'failed', 'error', 'skipped', 'xfailed', 'xpassed']),
});
export type TestCase = z.infer<typeof TestCaseSchema>;

/**
 * The one rule for what a test's outcome counts as, wherever outcomes are read: a pass, or an
 * unexpected pass of a test not marked strict. An expected failure is no pass (the code still fails
 * it), and a strict unexpected pass is a failure: the parsers report it as `failed` (pytest prints it
 * FAILED; automake's XPASS and meson's UNEXPECTEDPASS fail their suite).
 */
export const testPasses = (outcome?: TestCase['outcome']) => outcome === 'passed' || outcome === 'xpassed';

export const TestSignalSchema = z.object({
  command: z.string(),
  ran: z.boolean(),
  passed: z.boolean(),
  exitCode: z.number().int(),
  output: z.string(),
  /** The run was stopped at its time limit. */
  timedOut: z.boolean().optional(),
  /** Per-test outcomes where the runner reports them; absent means only the exit code is known. */
  cases: z.array(TestCaseSchema).optional(),
});
export type TestSignal = z.infer<typeof TestSignalSchema>;

/**
 * Gold validation of a stage: the PR's tests run at its base (with the PR's test files) and at its
 * merge. FAIL_TO_PASS tests are the ones the real change makes pass; PASS_TO_PASS ones passed before
 * and must keep passing. Tests that fail even on the gold merge check nothing and are left out.
 */
export const GoldTestsSchema = z.object({
  command: z.string(),
  failToPass: z.array(z.string()),
  passToPass: z.array(z.string()),
  /** Tests that do not pass on the gold merge either (broken or flaky): not used. */
  brokenOnGold: z.array(z.string()),
  // The fields below came with per-stage checks; records written before them lack them.
  repo: z.string().optional(),
  prNumber: z.number().int().positive().optional(),
  /**
   * 'verified': at least one FAIL_TO_PASS test checks the stage; 'no-verifying-test': the stage can be
   * rolled out but no test tells a right answer from a wrong one; 'invalid': the stage cannot be set up.
   */
  status: z.enum(['verified', 'no-verifying-test', 'invalid']).optional(),
  /** Why an invalid stage cannot be used (a missing base commit, a gold patch that does not apply, …), or what kept a stage's tests from verifying it (a service they need). */
  problem: z.string().optional(),
  /** Why the stage is not verified, typed and whole (absent on a verified stage and on records written before it). */
  reason: StageReasonSchema.optional(),
  /** The environment's test runner (a language's runners, src/environments/languages/<lang>/). */
  runner: z.string().optional(),
  /**
   * 'per-test': the runner reported each test; 'exit-code': it reported none, so the lists hold one
   * pseudo-test, EXIT_CODE_TEST, for the whole command's exit status.
   */
  signal: z.enum(['per-test', 'exit-code']).optional(),
  /** The language detected at the stage's base, where no environment was built (its reason says why): the funnel's per-language rows. */
  language: z.string().optional(),
  /** The environment the tests ran in, in short (its image's manifest label has the whole of it). */
  environment: z
    .object({
      image: z.string(),
      language: z.string(),
      origin: z.string(),
      /** What the toolchain reported in the image ('Python 3.11.2'). */
      toolchain: z.string(),
      /** 'uv 0.9.5; pip 23.0.1, resolved as of 2022-02-18, 13 packages'. */
      dependencies: z.string().optional(),
    })
    .optional(),
  checks: z
    .object({
      baseChecksOut: z.boolean(),
      goldApplies: z.boolean(),
      /** Earlier stages' gold work carried onto this base: 'none' for a first stage. */
      carry: z.enum(['none', 'clean', 'conflicts']),
    })
    .optional(),
  /** Tests whose outcome after the gold change differed between its runs (environments.goldRuns): in neither list. */
  flaky: z.array(z.string()).optional(),
  /** How many times the PR's tests ran after the gold change. */
  goldRuns: z.number().int().positive().optional(),
  /** Where detection's recipe failed and the setup agent stepped in, what it did. */
  setup: SetupOutcomeSchema.optional(),
});
export type GoldTests = z.infer<typeof GoldTestsSchema>;

/** The judge's notes per aspect of functional equivalence. */
export const VerdictAspectsSchema = z.object({
  behaviour: z.string().describe('Does the patch make the code behave as the reference does?'),
  completeness: z.string().describe('Is anything the task needs missing?'),
  scope: z.string().describe('Unrelated, risky or breaking changes?'),
  tests: z.string().describe('What the test results say'),
});
export type VerdictAspects = z.infer<typeof VerdictAspectsSchema>;

/** What the model must return when asked to judge; validated before use. */
export const ModelVerdictSchema = z.object({
  score: z.number().min(0).max(1),
  feedback: z.string(),
  /** Asked for every time; optional here so that a judge without per-aspect notes still counts. */
  aspects: VerdictAspectsSchema.optional(),
});
export type ModelVerdict = z.infer<typeof ModelVerdictSchema>;

/** The tests' side of a judgement (src/judge/test-outcome.ts). */
export const TestOutcomeSchema = z.object({
  /** 'per-test' compares against the gold validation; 'exit-code' knows only pass or fail. */
  checked: z.enum(['per-test', 'exit-code']),
  passed: z.boolean(),
  /** Share of the checking tests that pass, in [0, 1]. */
  share: z.number().min(0).max(1),
  failing: z.array(z.string()),
  failToPass: z.object({ passing: z.number().int(), total: z.number().int() }).optional(),
  passToPass: z.object({ passing: z.number().int(), total: z.number().int() }).optional(),
});
export type TestOutcome = z.infer<typeof TestOutcomeSchema>;

export const JudgementSchema = z.object({
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  feedback: z.string(),
  tests: TestSignalSchema.optional(),
  model: ModelVerdictSchema.optional(),
  /** What decided the score: the model capped by the tests, the model alone, the tests alone, or nothing. */
  basis: z.enum(['model+tests', 'model', 'tests', 'none']).optional(),
  outcome: TestOutcomeSchema.optional(),
  threshold: z.number().min(0).max(1).optional(),
});
export type Judgement = z.infer<typeof JudgementSchema>;
