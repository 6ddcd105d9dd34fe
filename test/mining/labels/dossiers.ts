import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../../../src/git';
import type { Candidate, OverlapLine } from './candidates';
import { normalise } from './diff-parse';
import { trimDiff } from './diff-trim';
import type { LandedPr } from './landed-prs';

/** About what a labeller can read of one PR: the later PR's diff, each earlier PR's, all texts of one PR. */
const LATER_DIFF = 30_000;
const EARLIER_DIFF = 12_000;
const TEXTS = 12_000;
const MAX_OVERLAP = 150;

export interface DossierStats {
  files: { name: string; pairs: number; bytes: number }[];
}

/**
 * One markdown file per later PR B for the labellers, who see nothing else: B's title, texts and
 * diff, then each candidate earlier PR A with its title, texts and diff, and where B removes or
 * rewrites lines A's commits wrote, those lines. Nothing says why else a pair is there. Also
 * pairs.jsonl (the pairs to label) and INDEX.txt (files, pair counts, sizes).
 */
export async function writeDossiers(
  clone: string,
  out: string,
  prs: readonly LandedPr[],
  texts: ReadonlyMap<number, string[]>,
  candidates: readonly Candidate[],
): Promise<DossierStats> {
  await mkdir(out, { recursive: true });
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const diffs = new Map<number, string>();
  const diffOf = async (pr: LandedPr) => {
    const cached = diffs.get(pr.number);
    if (cached !== undefined) return cached;
    const diff = await git(clone, [
      '-c',
      'core.quotePath=false',
      'diff',
      '--no-color',
      '--no-ext-diff',
      '-M',
      pr.base,
      pr.tip,
    ]);
    diffs.set(pr.number, diff);
    return diff;
  };
  const byLater = new Map<number, Candidate[]>();
  for (const candidate of candidates) byLater.set(candidate.from, [...(byLater.get(candidate.from) ?? []), candidate]);

  const stats: DossierStats = { files: [] };
  for (const [from, pairs] of [...byLater].sort((a, b) => a[0] - b[0])) {
    const later = byNumber.get(from) as LandedPr;
    const touched = new Set(pairs.flatMap((pair) => pair.overlap.map((line) => `${line.path}:${line.line}`)));
    let text = `# Later PR #${from}: ${later.title}\n\n${landed(later)} ${pairs.length} earlier PR(s) follow, one section each.\n\n`;
    text += section(`Texts of #${from}`, joinTexts(texts.get(from) ?? []));
    const diff = trimDiff(await diffOf(later), LATER_DIFF, (file, hunk) =>
      hunk.removed.some((line) => touched.has(`${file.oldPath}:${line.line}`)),
    );
    text += section(`Diff of #${from} as landed`, diff, 'diff');
    for (const pair of [...pairs].sort((a, b) => b.to - a.to)) {
      const earlier = byNumber.get(pair.to) as LandedPr;
      text += `\n---\n\n# Earlier PR #${pair.to}: ${earlier.title}\n\n${landed(earlier)}\n\n`;
      if (pair.overlap.length > 0)
        text += section(
          `Lines of #${from}'s change that #${pair.to} had added (at #${from}'s base)`,
          overlapText(pair.overlap),
        );
      text += section(`Texts of #${pair.to}`, joinTexts(texts.get(pair.to) ?? []));
      const wrote = new Set(pair.overlap.map((line) => normalise(line.text)));
      text += section(
        `Diff of #${pair.to} as landed`,
        trimDiff(await diffOf(earlier), EARLIER_DIFF, (_, hunk) =>
          hunk.added.some((line) => wrote.has(normalise(line))),
        ),
        'diff',
      );
    }
    const name = `B-${from}.md`;
    await writeFile(join(out, name), text);
    stats.files.push({ name, pairs: pairs.length, bytes: Buffer.byteLength(text) });
  }
  await writeFile(
    join(out, 'pairs.jsonl'),
    candidates.map((pair) => JSON.stringify({ from: pair.from, to: pair.to })).join('\n') + '\n',
  );
  const index = stats.files.map((file) => `${file.name}\t${file.pairs} pairs\t${file.bytes} bytes`);
  const total = stats.files.reduce((sum, file) => sum + file.bytes, 0);
  await writeFile(
    join(out, 'INDEX.txt'),
    `${index.join('\n')}\n# ${stats.files.length} files, ${candidates.length} pairs, ${total} bytes\n`,
  );
  return stats;
}

function landed(pr: LandedPr): string {
  return `Landed ${pr.landedAt.slice(0, 10)} (${pr.landing}).`;
}

function joinTexts(texts: readonly string[]): string {
  const joined = texts.join('\n\n-----\n\n');
  return joined.length <= TEXTS ? joined : `${joined.slice(0, TEXTS)}\n[trimmed ${joined.length - TEXTS} bytes]`;
}

function overlapText(lines: readonly OverlapLine[]): string {
  const shown = lines.slice(0, MAX_OVERLAP).map((line) => `${line.path}:${line.line}: ${line.text}`);
  return shown.join('\n') + (lines.length > MAX_OVERLAP ? `\n[${lines.length - MAX_OVERLAP} more lines]` : '');
}

/** A markdown heading and a fenced block whose fence is longer than any backtick run inside. */
function section(title: string, body: string, language = ''): string {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `## ${title}\n\n${fence}${language}\n${body.endsWith('\n') || body === '' ? body : body + '\n'}${fence}\n\n`;
}
