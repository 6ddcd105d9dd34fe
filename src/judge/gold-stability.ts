import type { GoldTests, TestCase } from '../schemas';
import { stageReason } from '../stage-reason';

const passes = (outcome?: TestCase['outcome']) => outcome === 'passed' || outcome === 'xpassed';

/**
 * Tests whose outcome differs between runs of the same tree: each named in at least two runs, passing
 * in one and not in another. A test a run does not name is not counted (its output may have been cut).
 */
export function flakyTests(runs: TestCase[][]): string[] {
  const seen = new Map<string, Set<boolean>>();
  for (const run of runs) for (const c of run) {
    if (c.outcome === 'skipped') continue;
    (seen.get(c.id) ?? seen.set(c.id, new Set()).get(c.id)!).add(passes(c.outcome));
  }
  return [...seen].filter(([, outcomes]) => outcomes.size > 1).map(([id]) => id).sort();
}

/**
 * A classification made stable: flaky tests (their outcome after the gold change differs between
 * `runs`) leave every list; a FAIL_TO_PASS test that passes with an empty patch (`emptyPatch`, the run
 * an agent that changes nothing would get) checks nothing a do-nothing agent lacks, and counts as
 * PASS_TO_PASS. Where that empties FAIL_TO_PASS, `problem` says which of the two did it.
 */
export function stabilize(gold: GoldTests, runs: TestCase[][], emptyPatch: TestCase[]): GoldTests {
  const flaky = new Set(flakyTests(runs));
  const keep = (ids: string[]) => ids.filter((id) => !flaky.has(id));
  const passesEmpty = new Set(emptyPatch.filter((c) => passes(c.outcome)).map((c) => c.id));
  const candidates = keep(gold.failToPass);
  const failToPass = candidates.filter((id) => !passesEmpty.has(id));
  const passToPass = [...keep(gold.passToPass), ...candidates.filter((id) => passesEmpty.has(id))];
  const out: GoldTests = { ...gold, failToPass, passToPass, brokenOnGold: keep(gold.brokenOnGold), flaky: [...flaky], goldRuns: runs.length };
  if (gold.failToPass.length && !failToPass.length) {
    out.problem = candidates.length
      ? `its FAIL_TO_PASS tests already pass with an empty patch: ${list(candidates)}`
      : `its FAIL_TO_PASS tests are flaky (their outcome after the gold change differs between ${runs.length} runs): ${list(gold.failToPass)}`;
    out.reason = stageReason(candidates.length ? 'no-verifying-test' : 'flaky', out.problem, { command: gold.command });
  }
  return out;
}

function list(ids: string[]): string {
  return ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
}
