import { PAPER } from '../dataset/stats';
import type { ChainRun, LeakReport, TrainingSample } from '../schemas';
import { barChart } from './bar-chart';
import type { ExportContents } from './load-export';

export interface Prices {
  /** US dollars per million prompt tokens and per million completion tokens. */
  input: number;
  output: number;
}

const COLORS = {
  blue: '#2563eb',
  teal: '#0d9488',
  amber: '#d97706',
  violet: '#7c3aed',
  red: '#dc2626',
  gray: '#9ca3af',
  green: '#16a34a',
  lime: '#65a30d',
};

export function sampleLabel(s: TrainingSample): string {
  return s.metadata.prs.map((n) => `#${n}`).join('·');
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const pct = (x: number) => `${Math.round(100 * x)}%`;

/** Counts of values in ten bins over [0, 1]; 1.0 falls in the last bin. */
function bins(values: number[]): number[] {
  const counts = new Array<number>(10).fill(0);
  for (const v of values) counts[Math.min(9, Math.max(0, Math.floor(v * 10)))]++;
  return counts;
}
const BIN_LABELS = Array.from(
  { length: 10 },
  (_, i) => `${(i / 10).toFixed(1)}–${i === 9 ? '1' : ((i + 1) / 10).toFixed(1)}`,
);

/**
 * One series per policy and scaffold, so gold replays are told apart from model rollouts, and the
 * bash scaffold's rollouts from the tools one's, at a glance.
 */
function byPolicy(samples: TrainingSample[], value: (s: TrainingSample) => number, color: string) {
  const of = (policy: string, scaffold: string) => (s: TrainingSample) =>
    s.metadata.policy === policy && (s.metadata.scaffold ?? 'tools') === scaffold;
  const groups = [
    { name: 'model rollout', color, match: of('model', 'tools') },
    { name: 'model rollout · bash', color: COLORS.violet, match: of('model', 'bash') },
    { name: 'gold replay', color: COLORS.gray, match: of('gold-replay', 'tools') },
    { name: 'gold replay · bash', color: COLORS.lime, match: of('gold-replay', 'bash') },
  ];
  return groups
    .map(({ name, color, match }) => ({ name, color, values: samples.map((s) => (match(s) ? value(s) : 0)) }))
    .filter((series) => series.values.some((v) => v > 0));
}

function tokensPlot(samples: TrainingSample[]): string {
  const tokens = samples.map((s) => s.metadata.tokens?.total ?? 0);
  return barChart({
    title: 'Tokens per sample',
    subtitle: `o200k_base; mean ${Math.round(mean(tokens)).toLocaleString('en-US')} = ${pct(mean(tokens) / PAPER.meanTokens)} of the paper's 85k average`,
    categories: samples.map(sampleLabel),
    series: byPolicy(samples, (s) => s.metadata.tokens?.total ?? 0, COLORS.blue),
    log: true,
    refLines: [
      { value: PAPER.meanTokens, label: 'paper mean 85k' },
      ...(samples.length ? [{ value: mean(tokens), label: 'mean here', color: COLORS.blue }] : []),
    ],
    yLabel: 'tokens (log scale)',
  });
}

function toolCallsPlot(samples: TrainingSample[]): string {
  const calls = samples.map((s) => s.metadata.toolCalls);
  return barChart({
    title: 'Tool calls per sample',
    subtitle:
      `mean ${mean(calls).toFixed(1)} = ${pct(mean(calls) / PAPER.meanToolCalls)} of the paper's 116 average` +
      (samples.some((s) => s.metadata.scaffold === 'bash') ? '; a bash-scaffold command counts as one call' : ''),
    categories: samples.map(sampleLabel),
    series: byPolicy(samples, (s) => s.metadata.toolCalls, COLORS.teal),
    log: true,
    refLines: [
      { value: PAPER.meanToolCalls, label: 'paper mean 116' },
      ...(samples.length ? [{ value: mean(calls), label: 'mean here', color: COLORS.teal }] : []),
    ],
    yLabel: 'tool calls (log scale)',
    showTotals: true,
  });
}

/** Per stage position: accepted after 1, 2, 3 or more rounds, rejected, or failed. */
function stagesPlot(runs: ChainRun[]): string {
  const positions = Math.max(0, ...runs.map((r) => r.stages.length));
  const buckets = ['accepted, round 1', 'round 2', 'round 3', 'round 4+', 'rejected', 'failed'];
  const counts = buckets.map(() => new Array<number>(positions).fill(0));
  for (const run of runs) {
    run.stages.forEach((stage, p) => {
      const rounds = stage.rounds.length;
      const b =
        stage.status === 'accepted' ? Math.min(3, Math.max(1, rounds) - 1) : stage.status === 'rejected' ? 4 : 5;
      counts[b][p]++;
    });
  }
  const acceptance = Array.from({ length: positions }, (_, p) => {
    const reached = counts.reduce((a, c) => a + c[p], 0);
    const accepted = counts.slice(0, 4).reduce((a, c) => a + c[p], 0);
    return `${p + 1}: ${reached ? pct(accepted / reached) : '–'}`;
  });
  return barChart({
    title: 'Stages by position in the chain',
    subtitle: `accepted share per position · ${acceptance.join(' · ') || 'no runs'}`,
    categories: Array.from({ length: positions }, (_, p) => `stage ${p + 1}`),
    series: buckets.map((name, b) => ({
      name,
      color: [COLORS.green, COLORS.lime, COLORS.amber, COLORS.violet, COLORS.red, COLORS.gray][b],
      values: counts[b],
    })),
    yLabel: 'stages',
    showTotals: true,
    integer: true,
  });
}

function judgePlot(runs: ChainRun[]): string {
  const all = runs.flatMap((r) => r.stages.flatMap((s) => s.rounds.map((x) => x.score)));
  const finals = runs.flatMap((r) =>
    r.stages.flatMap((s) => (s.rounds.length ? [s.rounds[s.rounds.length - 1].score] : [])),
  );
  const threshold = runs[0]?.threshold ?? 0.8;
  return barChart({
    title: 'Judge scores',
    subtitle: `${all.length} verdicts; a stage passes at ≥ ${threshold}`,
    categories: BIN_LABELS,
    series: [
      { name: 'every round', color: COLORS.blue, values: bins(all) },
      { name: 'last round of each stage', color: COLORS.amber, values: bins(finals) },
    ],
    mode: 'group',
    xMarker: { fraction: threshold, label: `pass ≥ ${threshold}` },
    yLabel: 'verdicts',
    integer: true,
  });
}

function leakPlot(contents: ExportContents): string {
  const reports = contents.runs
    .flatMap((r) => (r.queries ? [r.queries.overviewLeak, ...r.queries.stages.map((s) => s.leak)] : []))
    .filter((x): x is LeakReport => !!x);
  const limit = reports[0]?.limit ?? 0.3;
  const leak = contents.manifest.leak;
  return barChart({
    title: 'Query leak scores',
    subtitle: `leak rate ${pct(leak.rate)} (${leak.leaked} of ${leak.queries} queries over the limit); ${leak.caught} caught on first writing`,
    categories: BIN_LABELS,
    series: [
      { name: 'first generation', color: COLORS.gray, values: bins(reports.map((r) => r.firstScore)) },
      { name: 'query kept', color: COLORS.violet, values: bins(reports.map((r) => r.score)) },
    ],
    mode: 'group',
    xMarker: { fraction: limit, label: `limit ${limit}` },
    yLabel: 'queries',
    integer: true,
  });
}

function costPlot(samples: TrainingSample[], prices?: Prices): string {
  const prompt = samples.map((s) => s.metadata.usage.promptTokens);
  const completion = samples.map((s) => s.metadata.usage.completionTokens);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const dollars = prices ? (sum(prompt) * prices.input + sum(completion) * prices.output) / 1e6 : undefined;
  return barChart({
    title: 'Rollout cost: API tokens per sample',
    subtitle:
      `${sum(prompt).toLocaleString('en-US')} prompt + ${sum(completion).toLocaleString('en-US')} completion tokens billed` +
      (dollars !== undefined ? ` ≈ $${dollars.toFixed(2)}` : ' (pass --price-input/--price-output for dollars)'),
    categories: samples.map(sampleLabel),
    series: [
      { name: 'prompt', color: COLORS.blue, values: prompt },
      { name: 'completion', color: COLORS.amber, values: completion },
    ],
    yLabel: 'API tokens',
    showTotals: true,
    integer: true,
  });
}

/** The six plots of the report, as inline SVG. */
export function plots(contents: ExportContents, prices?: Prices): string[] {
  const samples = [...contents.samples].sort((a, b) => a.id.localeCompare(b.id));
  return [
    tokensPlot(samples),
    toolCallsPlot(samples),
    stagesPlot(contents.runs),
    judgePlot(contents.runs),
    leakPlot(contents),
    costPlot(samples, prices),
  ];
}
