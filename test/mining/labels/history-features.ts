import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLocalPullRequests } from '../../../src/mining/landings/local-git';
import { recordsToChains } from '../../../src/mining/pipeline';
import { linkingEdges } from '../../../src/mining/chains/chains';
import { dropReason } from '../../../src/mining/chains/filters';
import { findCopies } from '../../../src/mining/links/copies';
import { codeHistoryEdges, DEFAULT_WINDOW_DAYS } from '../../../src/mining/links/code-history';
import { saysFix } from '../../../src/mining/links/corroboration';
import { linkPullRequests } from '../../../src/mining/links/references';
import { isSweep } from '../../../src/mining/links/sweeps';
import type { Edge, PullRequestRecord } from '../../../src/schemas';
import { pairKey, type LabelRow } from './scores';

/**
 * Only the tuning repositories: the report-only labels are never read pair by pair while the miner
 * changes (README.md), and a table of their rows would be exactly that.
 */
const TUNING: Record<string, string> = { jinja: 'pallets/jinja', cjson: 'DaveGamble/cJSON' };
const USAGE = `usage: node dist/test/mining/labels/history-features.js CLONE ${Object.keys(TUNING).join('|')}`;
/** Blame of any age, so that the window itself is a feature: about 25 years (git misreads a --since before 1970). */
const ANY_AGE_DAYS = 9_000;
const DAY = 86_400_000;

/** One labelled pair and what the miner's code-history rule sees of it. */
export interface PairFeatures {
  repo: string;
  from: number;
  to: number;
  link: boolean;
  strength: string | null;
  stratum: string;
  p: number;
  /** Days between the two merges. */
  gapDays: number;
  /** The later PR was opened after the earlier one (numbers follow creation). */
  openedAfter: boolean;
  sameAuthor: boolean;
  /** The text rule's edge between the pair, if any (kind), and whether it links at default options. */
  text?: string;
  /** Whether the default mine links the pair, and with which kind and strength. */
  linked: boolean;
  linkedAs?: string;
  /** The code-history edge with blame of any age, read from its evidence. */
  history?: HistoryFeatures;
  /** Why there is no code-history edge: the later PR is a sweep, a bot's or oversized, a copy. */
  gate?: string;
  /** The later PR: files by kind, lines changed, sweep, fix words. */
  b: SideFeatures;
  a: SideFeatures;
}

interface SideFeatures {
  code: number;
  test: number;
  other: number;
  lines: number;
  sweep: boolean;
  fix: boolean;
  /** Earlier PRs (later for `a`) it shares code history with, at any age and within the window. */
  partners: number;
  partnersInWindow: number;
}

interface HistoryFeatures {
  kind: string;
  confidence: number;
  strength: string;
  lines: number;
  doc: number;
  share: number;
  changed: number;
  blamedKind: string;
  /** Share of the lines A added that B rewrites, where the rework rule counts it. */
  rework: number;
  regression: boolean;
  fixWords: boolean;
  bothName: boolean;
  /** A's lines among all lines of B blamed on any PR at any age, and A's rank by them (1 = most). */
  dominance: number;
  rank: number;
}

const side = (pr: PullRequestRecord, partners: number, partnersInWindow: number): SideFeatures => ({
  code: pr.files.filter((file) => file.kind === 'code').length,
  test: pr.files.filter((file) => file.kind === 'test').length,
  other: pr.files.filter((file) => file.kind === 'other').length,
  lines: pr.files.reduce((sum, file) => sum + file.additions + file.deletions, 0),
  sweep: isSweep(pr),
  fix: saysFix(pr),
  partners,
  partnersInWindow,
});

const EVIDENCE =
  /changes (\d+) lines? that #\d+ wrote(?: \((\d+) of them comments or docstrings\))? \((\d+)% of its (\d+) changed lines of ([a-z ]+)\)/;

function historyOf(edge: Edge, all: readonly Edge[]): HistoryFeatures {
  const m = EVIDENCE.exec(edge.evidence);
  const lines = m ? Number(m[1]) : 0;
  const mine = all.filter((other) => other.from === edge.from);
  const total = mine.reduce((sum, other) => sum + (Number(EVIDENCE.exec(other.evidence)?.[1]) || 0), 0);
  return {
    kind: edge.kind,
    confidence: edge.confidence,
    strength: edge.strength ?? 'strong',
    lines,
    doc: m?.[2] ? Number(m[2]) : 0,
    share: m ? Number(m[3]) / 100 : 0,
    changed: m ? Number(m[4]) : 0,
    blamedKind: m?.[5] ?? 'none',
    rework: Number(/that is (\d+)% of the/.exec(edge.evidence)?.[1] ?? 0) / 100,
    regression: edge.evidence.includes('says an earlier change broke it'),
    fixWords: edge.evidence.includes('says it fixes'),
    bothName: edge.evidence.includes('both name'),
    dominance: total > 0 ? lines / total : 0,
    rank: 1 + mine.filter((other) => (Number(EVIDENCE.exec(other.evidence)?.[1]) || 0) > lines).length,
  };
}

/** The feature table of one tuning repository's labelled pairs, one JSON line each. */
export async function historyFeatures(clone: string, short: string, labels: LabelRow[]): Promise<PairFeatures[]> {
  const repo = TUNING[short];
  const mined = await readLocalPullRequests(clone);
  const prs = mined.prs;
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const opts = { repo, pullNumbers: mined.pullNumbers, clone };
  const result = await recordsToChains(
    { name: repo, path: clone },
    prs,
    async (p) => p.map((pr) => ({ ...pr, patch: '' })),
    opts,
  );
  const links = new Map(
    linkingEdges(result.edges, { minStrength: 'weak' }).map((edge) => [pairKey(edge.from, edge.to), edge]),
  );
  const { edges: textEdges } = linkPullRequests(prs, opts);
  const texts = new Map(textEdges.map((edge) => [pairKey(edge.from, edge.to), edge]));
  const copies = await findCopies(prs, textEdges, clone);
  const blameable = prs.filter(
    (pr) =>
      dropReason(pr, { keepNoCode: true }) === undefined &&
      !copies.copyOf.has(pr.number) &&
      !copies.syncs.has(pr.number),
  );
  const named = new Set(textEdges.filter((edge) => edge.kind === 'mentions').map((edge) => `${edge.from}->${edge.to}`));
  const history = await codeHistoryEdges(clone, prs, blameable, { windowDays: ANY_AGE_DAYS, named, copies });
  const histories = new Map(history.map((edge) => [pairKey(edge.from, edge.to), edge]));
  const gap = (edge: Edge) =>
    Math.abs(Date.parse(byNumber.get(edge.from)?.mergedAt ?? '') - Date.parse(byNumber.get(edge.to)?.mergedAt ?? '')) /
    DAY;
  const partners = (number: number, end: 'from' | 'to', days: number) =>
    history.filter((edge) => edge[end] === number && gap(edge) <= days).length;
  const blameableSet = new Set(blameable.map((pr) => pr.number));

  const rows: PairFeatures[] = [];
  for (const label of labels) {
    const [b, a] = [byNumber.get(label.from), byNumber.get(label.to)];
    if (!b || !a) continue;
    const key = pairKey(label.from, label.to);
    const edge = histories.get(key);
    const gate = edge
      ? undefined
      : [
          !blameableSet.has(b.number) ? `B ${dropReason(b, { keepNoCode: true }) ?? 'copy or sync'}` : '',
          isSweep(b) ? 'B sweep' : '',
          isSweep(a) ? 'A sweep' : '',
        ]
          .filter(Boolean)
          .join(', ') || 'no blamed line';
    const linked = links.get(key);
    rows.push({
      repo: short,
      from: label.from,
      to: label.to,
      link: label.link,
      strength: label.strength ?? null,
      stratum: label.stratum ?? 'text',
      p: label.p ?? 1,
      gapDays: Math.round(Math.abs(Date.parse(b.mergedAt) - Date.parse(a.mergedAt)) / DAY),
      openedAfter: b.number > a.number,
      sameAuthor: b.author === a.author,
      ...(texts.has(key) ? { text: texts.get(key)?.kind } : {}),
      linked: linked !== undefined,
      ...(linked ? { linkedAs: `${linked.kind}/${linked.strength}` } : {}),
      ...(edge ? { history: historyOf(edge, history) } : { gate }),
      b: side(b, partners(b.number, 'from', ANY_AGE_DAYS), partners(b.number, 'from', DEFAULT_WINDOW_DAYS)),
      a: side(a, partners(a.number, 'to', ANY_AGE_DAYS), partners(a.number, 'to', DEFAULT_WINDOW_DAYS)),
    });
  }
  return rows;
}

async function main(): Promise<number> {
  const [clone, short] = process.argv.slice(2);
  if (!clone || !short) return fail(USAGE);
  if (!TUNING[short]) return fail(`${short} is not a tuning repository (${Object.keys(TUNING).join(', ')})`);
  if (!existsSync(clone)) return fail(`${clone} does not exist`);
  const labels = readFileSync(
    join(__dirname, '..', '..', '..', '..', 'test', 'mining', 'labels', `${short}.jsonl`),
    'utf8',
  )
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as LabelRow);
  for (const row of await historyFeatures(clone, short, labels)) console.log(JSON.stringify(row));
  return 0;
}

function fail(message: string): number {
  console.error(`error: ${message}`);
  return 2;
}

if (require.main === module)
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
