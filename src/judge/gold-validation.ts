import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { ArtifactStore } from '../artifacts/store';
import { StageError } from '../errors';
import { CARRY_PATCH, carryScript, parseCarry } from '../sandbox/carryover';
import { checkoutLines } from '../sandbox/checkout';
import { DockerSandbox, type SandboxSpec } from '../sandbox/docker-sandbox';
import type { Environments } from '../environments/builder';
import { ownerLabel, sweepOrphansOnce } from '../sandbox/orphans';
import { stageInputProblem } from '../sandbox/stage-inputs';
import { GoldTestsSchema, type Chain, type GoldTests, type TestCase } from '../schemas';
import { prTestCommand, prTestFiles, quotePaths, runTests, type TestPlan } from './test-signal';

const passes = (outcome?: TestCase['outcome']) => outcome === 'passed' || outcome === 'xpassed';

/** The one test of a runner without a per-test report: the test command's exit status. */
export const EXIT_CODE_TEST = '(exit code of the test command)';

/** FAIL_TO_PASS and PASS_TO_PASS from the per-test outcomes before and after the gold change. */
export function classifyTests(before: TestCase[], after: TestCase[], command: string): GoldTests {
  const was = new Map(before.map((c) => [c.id, c.outcome]));
  const gold: GoldTests = { command, failToPass: [], passToPass: [], brokenOnGold: [] };
  for (const { id, outcome } of after) {
    if (!passes(outcome)) gold.brokenOnGold.push(id);
    else if (passes(was.get(id))) gold.passToPass.push(id);
    else gold.failToPass.push(id);
  }
  return gold;
}

/** A stage that cannot be used, with the reason; nothing ran. */
export function invalidGold(chain: Chain, stage: number, command: string, problem: string): GoldTests {
  const pr = chain.prs[stage];
  return { command, failToPass: [], passToPass: [], brokenOnGold: [], repo: chain.repo.name, prNumber: pr.number, status: 'invalid', problem };
}

/**
 * Gold validation of one stage in a sandbox from the stage's environment image: the base checks out;
 * the earlier stages' gold work carries onto it; the PR's tests (their PR versions) run at the base
 * and at the merge and are sorted into FAIL_TO_PASS and PASS_TO_PASS. A stage with no FAIL_TO_PASS
 * test is marked 'no-verifying-test'. A test runner without a per-test report yields empty lists,
 * and the judge falls back to the exit code.
 */
export async function validateGold(sandbox: DockerSandbox, chain: Chain, stage: number, plan: TestPlan, timeoutSeconds: number): Promise<GoldTests> {
  const pr = chain.prs[stage];
  const files = prTestFiles(pr);
  const command = prTestCommand(plan, files);
  const sh = async (what: string, lines: string[]) => {
    const r = await sandbox.exec(`set -euo pipefail\n${lines.join('\n')}`, { timeoutSeconds: 600, maxOutputChars: 8_000, cwd: '/work' });
    if (r.exitCode !== 0) throw new StageError(`gold validation of PR #${pr.number} could not ${what}:\n${r.output}`);
    return r.output;
  };
  let carry: 'none' | 'clean' | 'conflicts' = 'none';
  if (stage > 0) {
    // The carry a perfect agent would make (its tree is the gold tree, so the carried patch is empty).
    await sandbox.writeFile(CARRY_PATCH, '');
    const out = await sh('carry the earlier stages onto its base', [carryScript(chain, stage, { carry: true, progress: false })]);
    carry = parseCarry(out, chain, stage, true).conflicts.length ? 'conflicts' : 'clean';
  }
  const record = (gold: GoldTests): GoldTests => ({
    ...gold,
    runner: plan.runner,
    repo: chain.repo.name,
    prNumber: pr.number,
    status: gold.failToPass.length ? 'verified' : 'no-verifying-test',
    checks: { baseChecksOut: true, goldApplies: true, carry },
  });
  if (!files.length) return record({ command, failToPass: [], passToPass: [], brokenOnGold: [] });
  await sh('check out its base', [...checkoutLines(pr.baseSha), `git checkout ${pr.mergeSha} -- ${quotePaths(files)}`]);
  const before = await runTests(sandbox, plan, command, timeoutSeconds);
  await sh('check out its merge', checkoutLines(pr.mergeSha));
  const after = await runTests(sandbox, plan, command, timeoutSeconds);
  if (!before.cases && !after.cases) {
    // No per-test report either time: the command's exit status is the one test, and the stage says so.
    const status = (passed: boolean): TestCase[] => [{ id: EXIT_CODE_TEST, outcome: passed ? 'passed' : 'failed' }];
    return record({ ...classifyTests(status(before.passed), status(after.passed), command), signal: 'exit-code' });
  }
  return record({ ...classifyTests(before.cases ?? [], after.cases ?? [], command), signal: 'per-test' });
}

export interface GoldValidationDeps {
  docker: Docker;
  store: ArtifactStore;
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels' | 'image'>;
  environments: Environments;
  timeoutSeconds?: number;
}

/**
 * The gold validation of one stage, computed once per PR, environment and test command and kept in
 * the artifact store (a retried activity or a second chain through the same PR reuses it). A stage
 * whose inputs are broken (a missing commit, a gold patch that does not apply) is recorded as
 * 'invalid' with the reason; an environment that cannot be built throws StageError.
 */
export async function goldTestsFor(deps: GoldValidationDeps, chain: Chain, stage: number): Promise<GoldTests> {
  const pr = chain.prs[stage];
  const problem = await stageInputProblem(chain.repo.path, pr);
  if (problem) return invalidGold(chain, stage, '', problem);
  const env = await deps.environments.forStage(chain, stage);
  const previous = stage > 0 ? chain.prs[stage - 1].mergeSha : '';
  const key = createHash('sha256').update(`${pr.baseSha} ${pr.mergeSha} ${previous} ${env.image} ${env.runner} ${env.test ?? ''}`).digest('hex').slice(0, 24);
  const pointer = `gold-tests/${key}`;
  const known = await deps.store.getPointer(pointer);
  if (known) return { ...(await deps.store.getJson(known, GoldTestsSchema)), repo: chain.repo.name, prNumber: pr.number };
  await sweepOrphansOnce(deps.docker);
  const sandbox = await DockerSandbox.create(deps.docker, {
    ...deps.sandbox,
    image: env.image,
    mirrorPath: chain.repo.path,
    labels: { 'chainsmith.gold': `${pr.number}`, ...ownerLabel() },
  });
  try {
    const gold = await validateGold(sandbox, chain, stage, env, deps.timeoutSeconds ?? 600);
    await deps.store.setPointer(pointer, await deps.store.putJson(gold));
    return gold;
  } finally {
    await sandbox.destroy();
  }
}

export interface YieldRow {
  repo: string;
  stages: number;
  verified: number;
  noVerifyingTest: number;
  invalid: number;
  /** Share of stages with at least one FAIL_TO_PASS test. */
  yield: number;
}

/** How many stages per repository gold validation found usable, with a test that checks them. */
export function goldYield(records: GoldTests[]): YieldRow[] {
  const rows = new Map<string, YieldRow>();
  for (const g of records) {
    const repo = g.repo ?? '(unknown)';
    const row = rows.get(repo) ?? { repo, stages: 0, verified: 0, noVerifyingTest: 0, invalid: 0, yield: 0 };
    row.stages += 1;
    if (g.status === 'invalid') row.invalid += 1;
    else if (g.failToPass.length) row.verified += 1;
    else row.noVerifyingTest += 1;
    row.yield = row.verified / row.stages;
    rows.set(repo, row);
  }
  return [...rows.values()].sort((a, b) => a.repo.localeCompare(b.repo));
}

/** Validates every stage of the chains (cached per stage) and reports the yield per repository. */
export async function goldYieldOf(deps: GoldValidationDeps, chains: Chain[]): Promise<{ rows: YieldRow[]; records: GoldTests[] }> {
  const records: GoldTests[] = [];
  for (const chain of chains) {
    for (let stage = 0; stage < chain.prs.length; stage++) {
      try {
        records.push(await goldTestsFor(deps, chain, stage));
      } catch (err) {
        if (!(err instanceof StageError)) throw err;
        records.push(invalidGold(chain, stage, '', err.message));
      }
    }
  }
  return { rows: goldYield(records), records };
}

/** The yield as a small table for a terminal. */
export function formatGoldYield(rows: YieldRow[]): string {
  const lines = ['repository  stages  verified  no-verifying-test  invalid  yield'];
  for (const r of rows) lines.push(`${r.repo}  ${r.stages}  ${r.verified}  ${r.noVerifyingTest}  ${r.invalid}  ${(100 * r.yield).toFixed(0)}%`);
  return lines.join('\n');
}
