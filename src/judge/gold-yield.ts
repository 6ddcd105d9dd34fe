import { StageError } from '../errors';
import type { Chain, GoldTests } from '../schemas';
import { goldTestsFor, invalidGold, type GoldValidationDeps } from './gold-validation';

export interface YieldRow {
  repo: string;
  language: string;
  stages: number;
  verified: number;
  noVerifyingTest: number;
  invalid: number;
  /** Share of stages with at least one FAIL_TO_PASS test. */
  yield: number;
}

/** How many stages per repository and language gold validation found usable, with a test that checks them. */
export function goldYield(records: GoldTests[]): YieldRow[] {
  const rows = new Map<string, YieldRow>();
  for (const g of records) {
    const repo = g.repo ?? '(unknown)';
    const language = g.environment?.language ?? 'unknown';
    const key = `${repo}\0${language}`;
    const row = rows.get(key) ?? { repo, language, stages: 0, verified: 0, noVerifyingTest: 0, invalid: 0, yield: 0 };
    row.stages += 1;
    if (g.status === 'invalid') row.invalid += 1;
    else if (g.failToPass.length) row.verified += 1;
    else row.noVerifyingTest += 1;
    row.yield = row.verified / row.stages;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => a.repo.localeCompare(b.repo) || a.language.localeCompare(b.language));
}

/**
 * Validates every stage of the chains (cached per stage), one after another, and says how each went.
 * A stage that cannot be set up (its environment does not build, its base is missing) is recorded as
 * invalid with the reason; the others go on.
 */
export async function validateStages(
  deps: GoldValidationDeps,
  chains: Chain[],
  onStage: (record: GoldTests, done: number, total: number) => void = () => {},
): Promise<GoldTests[]> {
  const total = chains.reduce((n, c) => n + c.prs.length, 0);
  const records: GoldTests[] = [];
  for (const chain of chains) {
    for (let stage = 0; stage < chain.prs.length; stage++) {
      const record = await goldTestsFor(deps, chain, stage).catch((err) => {
        if (!(err instanceof StageError)) throw err;
        return invalidGold(chain, stage, '', err.message);
      });
      records.push(record);
      onStage(record, records.length, total);
    }
  }
  return records;
}

/** The yield as an aligned table for a terminal. */
export function formatGoldYield(rows: YieldRow[]): string {
  const table = [['repository', 'language', 'stages', 'verified', 'no-verifying-test', 'invalid', 'yield']];
  for (const r of rows) table.push([r.repo, r.language, `${r.stages}`, `${r.verified}`, `${r.noVerifyingTest}`, `${r.invalid}`, `${(100 * r.yield).toFixed(0)}%`]);
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  return table.map((row) => row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** One line per stage, as `validate` prints it while it runs. */
export function describeStage(g: GoldTests): string {
  const where = `${g.repo ?? '?'} PR #${g.prNumber ?? '?'}`;
  if (g.status === 'invalid') return `${where}: invalid: ${firstLine(g.problem ?? 'cannot be set up')}`;
  if (g.failToPass.length) return `${where}: verified (${g.failToPass.length} FAIL_TO_PASS, ${g.passToPass.length} PASS_TO_PASS)`;
  return `${where}: no verifying test (${g.passToPass.length} PASS_TO_PASS, ${g.brokenOnGold.length} broken on the gold change)`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
