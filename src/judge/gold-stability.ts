import { testPasses, type GoldTests, type TestCase } from '../schemas';
import { stageReason } from '../stage-reason';

/**
 * Tests whose outcome differs between runs of the same tree: each named in at least two runs, passing
 * in one and not in another. A test a run does not name is not counted (its output may have been cut).
 */
export function flakyTests(runs: TestCase[][]): string[] {
  const seen = new Map<string, Set<boolean>>();
  for (const run of runs)
    for (const c of run) {
      if (c.outcome === 'skipped') continue;
      (seen.get(c.id) ?? seen.set(c.id, new Set()).get(c.id)!).add(testPasses(c.outcome));
    }
  return [...seen]
    .filter(([, outcomes]) => outcomes.size > 1)
    .map(([id]) => id)
    .sort();
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
  const passesEmpty = new Set(emptyPatch.filter((c) => testPasses(c.outcome)).map((c) => c.id));
  const candidates = keep(gold.failToPass);
  const failToPass = candidates.filter((id) => !passesEmpty.has(id));
  const passToPass = [...keep(gold.passToPass), ...candidates.filter((id) => passesEmpty.has(id))];
  const out: GoldTests = {
    ...gold,
    failToPass,
    passToPass,
    brokenOnGold: keep(gold.brokenOnGold),
    flaky: [...flaky],
    goldRuns: runs.length,
  };
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

/** Per repository: stages whose tests ran more than once after the gold change, and how many of them had a flaky test. */
export function flakyRates(
  records: GoldTests[],
): Array<{ repo: string; checked: number; flaky: number; tests: number }> {
  const rows = new Map<string, { repo: string; checked: number; flaky: number; tests: number }>();
  for (const g of records) {
    if ((g.goldRuns ?? 0) < 2) continue;
    const repo = g.repo ?? '(unknown)';
    const row = rows.get(repo) ?? rows.set(repo, { repo, checked: 0, flaky: 0, tests: 0 }).get(repo)!;
    row.checked += 1;
    row.tests += g.flaky?.length ?? 0;
    if (g.flaky?.length) row.flaky += 1;
  }
  return [...rows.values()].sort((a, b) => a.repo.localeCompare(b.repo));
}

/** The flaky rate per repository, as `validate` prints it after the funnel. */
export function formatFlakyRates(records: GoldTests[]): string {
  const rows = flakyRates(records);
  if (!rows.length)
    return 'flaky tests: no stage had a test that could verify it, so none ran twice after the gold change';
  return [
    'flaky tests (stages whose tests ran twice or more after the gold change):',
    ...rows.map(
      (r) =>
        `  ${r.repo}: ${r.flaky} of ${r.checked} stages had a flaky test (${((100 * r.flaky) / r.checked).toFixed(0)}%), ${r.tests} flaky tests`,
    ),
  ].join('\n');
}
