import { STAGE_REASON_KINDS, type Chain, type GoldTests, type StageReasonKind } from '../schemas';
import { NO_TEST_FILES } from './unverified-reason';

/** How far each stage got, per repository and language: with tests → environment built → tests runnable → verifying test → stable. */
export interface FunnelRow {
  repo: string;
  language: string;
  stages: number;
  /** Stages whose PR changes a test file: the others need no environment, and nothing of theirs can verify them. */
  withTests: number;
  environmentBuilt: number;
  testsRunnable: number;
  verifyingTest: number;
  stable: number;
  /** Stages short of stable, by the kind of their reason. */
  reasons: Partial<Record<StageReasonKind | 'unknown', number>>;
  chains: number;
  /** Chains whose every stage is stable. */
  chainsWhole: number;
  /** Stable stages that the setup agent's recipes set up where detection's failed (src/setup-agent); absent where none. */
  rescued?: number;
  /** Chains cut at stage k (1-based: the first stage short of stable), with the reasons of those stages by kind. */
  cutAt: Record<number, Partial<Record<StageReasonKind | 'unknown', number>>>;
}

/** The kind a record's reason has: records older than typed reasons are sorted by their status. */
export function reasonKind(g: GoldTests): StageReasonKind | 'unknown' {
  if (g.reason) return g.reason.kind;
  if (g.status === 'invalid') return 'unknown';
  return 'no-verifying-test';
}

/** Reasons of a stage whose environment built and whose tests did not run to an outcome. */
const NOT_RUN = new Set<string>(['tests-not-runnable', 'timeout', 'dependencies-unresolvable', 'unsupported']);

/** Steps a stage reached, in order: test files in its PR, an environment, tests that ran, a FAIL_TO_PASS test, one that held on reruns. */
export function stageSteps(g: GoldTests): {
  withTests: boolean;
  environmentBuilt: boolean;
  testsRunnable: boolean;
  verifyingTest: boolean;
  stable: boolean;
} {
  const kind = g.failToPass.length ? undefined : reasonKind(g);
  const withTests = !(kind === 'no-verifying-test' && g.reason?.summary === NO_TEST_FILES);
  // A stage whose PR changes no test gets no environment built: its record holds the detected language only.
  const environmentBuilt = withTests && !!g.environment?.image;
  // Tests that ran into what the environment lacks (a package no registry served, a submodule not fetched, a toolchain
  // that cannot read the code) ran no test either, though the environment built.
  const testsRunnable = environmentBuilt && !(kind && NOT_RUN.has(kind));
  // A stage whose FAIL_TO_PASS tests all flipped on a rerun had a verifying test, and lost it for being unstable.
  const verifyingTest = testsRunnable && (g.failToPass.length > 0 || kind === 'flaky');
  return {
    withTests,
    environmentBuilt,
    testsRunnable,
    verifyingTest,
    stable: verifyingTest && g.failToPass.length > 0,
  };
}

/**
 * The funnel of a validation run. `records` are the stages of `chains` in order (validateStages'
 * result). A chain belongs to the language of its first stage whose language is known.
 */
export function funnel(chains: Chain[], records: GoldTests[]): FunnelRow[] {
  const rows = new Map<string, FunnelRow>();
  const row = (repo: string, language: string): FunnelRow => {
    const key = `${repo}\0${language}`;
    let r = rows.get(key);
    if (!r)
      rows.set(
        key,
        (r = {
          repo,
          language,
          stages: 0,
          withTests: 0,
          environmentBuilt: 0,
          testsRunnable: 0,
          verifyingTest: 0,
          stable: 0,
          reasons: {},
          chains: 0,
          chainsWhole: 0,
          cutAt: {},
        }),
      );
    return r;
  };
  let i = 0;
  for (const chain of chains) {
    const stages = records.slice(i, i + chain.prs.length);
    i += chain.prs.length;
    const language = stages.map(languageOf).find((l) => l !== 'unknown') ?? 'unknown';
    for (const g of stages) {
      const r = row(chain.repo.name, languageOf(g) === 'unknown' ? language : languageOf(g));
      const steps = stageSteps(g);
      r.stages += 1;
      r.withTests += +steps.withTests;
      r.environmentBuilt += +steps.environmentBuilt;
      r.testsRunnable += +steps.testsRunnable;
      r.verifyingTest += +steps.verifyingTest;
      r.stable += +steps.stable;
      if (!steps.stable) bump(r.reasons, reasonKind(g));
      else if (g.setup?.outcome === 'rescued' || g.setup?.outcome === 'saved-recipe') r.rescued = (r.rescued ?? 0) + 1;
    }
    const r = row(chain.repo.name, language);
    r.chains += 1;
    const cut = stages.findIndex((g) => !stageSteps(g).stable);
    if (cut < 0) r.chainsWhole += 1;
    else bump((r.cutAt[cut + 1] ??= {}), reasonKind(stages[cut]));
  }
  return [...rows.values()].sort((a, b) => a.repo.localeCompare(b.repo) || a.language.localeCompare(b.language));
}

/** The stage's language: its environment's, or where none was built the one detected for it. */
const languageOf = (g: GoldTests): string => g.environment?.language ?? g.language ?? 'unknown';

function bump<K extends string>(counts: Partial<Record<K, number>>, key: K): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Kinds in their declared order (the order a stage goes through), then any unknown. */
export function byKind(counts: Partial<Record<StageReasonKind | 'unknown', number>>): string {
  return [...STAGE_REASON_KINDS, 'unknown' as const]
    .filter((k) => counts[k])
    .map((k) => `${k} ${counts[k]}`)
    .join(', ');
}

/** The funnel for a terminal: an aligned table of stages, then each repository's chains and its unverified stages' reasons by kind. */
export function formatFunnel(rows: FunnelRow[]): string {
  const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}%` : '-');
  const table = [
    [
      'repository',
      'language',
      'stages',
      'with tests',
      'environment built',
      'tests runnable',
      'verifying test',
      'stable',
      'yield',
    ],
  ];
  for (const r of rows) {
    table.push([
      r.repo,
      r.language,
      `${r.stages}`,
      `${r.withTests}`,
      `${r.environmentBuilt}`,
      `${r.testsRunnable}`,
      `${r.verifyingTest}`,
      `${r.stable}`,
      pct(r.stable, r.stages),
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const lines = table.map((row) =>
    row
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
  for (const r of rows) {
    const unstable = r.stages - r.stable;
    const cuts = Object.entries(r.cutAt)
      .sort(([a], [b]) => +a - +b)
      .map(
        ([k, kinds]) =>
          `cut at stage ${k}: ${Object.values(kinds).reduce((a, b) => a + (b ?? 0), 0)} (${byKind(kinds)})`,
      );
    lines.push(`${r.repo} (${r.language}):`);
    if (r.chains)
      lines.push(
        `  chains: ${r.chains}; every stage verified: ${r.chainsWhole}${cuts.length ? `; ${cuts.join('; ')}` : ''}`,
      );
    if (unstable) lines.push(`  stages not verified: ${unstable} (${byKind(r.reasons)})`);
    if (r.rescued) lines.push(`  stages the setup agent rescued (detection's recipe failed): ${r.rescued}`);
  }
  return lines.join('\n');
}
