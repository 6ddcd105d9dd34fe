import { git } from '../../../src/git';
import { parseDiff } from './diff-parse';

/** A line a later change removed or rewrote, and the commit `git blame` says wrote it. */
export interface BlamedLine {
  sha: string;
  path: string;
  /** Line number at the later change's base. */
  line: number;
  text: string;
}

/**
 * Blame is asked twice. Following moves and copies (-M -C) finds the PR that first wrote a moved
 * line, but it also credits a line to any older line it equals (a docstring copied from a sibling
 * function goes to the sibling's author); without them blame names who last wrote the line itself.
 * Both writers are candidates.
 */
const FOLLOW = [['-M', '-C'], []];
const PORCELAIN_HEADER = /^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$/;

/**
 * Who wrote each line the change base..tip removes or rewrites: `git blame -w -M -C` and `git blame
 * -w` at base over those lines (a line may have two writers). The removed lines come from `git diff -w`, so a change that only re-indents a line does
 * not count as touching it, and blame itself looks through whitespace, moves within a file and copies
 * from files the same commit changed. Blank lines are left out: nobody's work is a blank line. A file
 * blame cannot read (a submodule, a path git quotes) is skipped.
 */
export async function blameRemovedLines(clone: string, base: string, tip: string): Promise<BlamedLine[]> {
  const diff = await git(clone, [
    '-c',
    'core.quotePath=false',
    'diff',
    '--no-color',
    '--no-ext-diff',
    '-w',
    '-U0',
    '-M',
    base,
    tip,
  ]);
  const blamed: BlamedLine[] = [];
  for (const file of parseDiff(diff)) {
    if (file.oldPath === null) continue;
    const lines = file.hunks
      .flatMap((hunk) => hunk.removed)
      .filter((removed) => removed.text.trim() !== '')
      .map((removed) => removed.line);
    if (lines.length === 0) continue;
    const wanted = new Set(lines);
    const seen = new Set<string>();
    for (const follow of FOLLOW) {
      const args = [
        'blame',
        '-w',
        ...follow,
        '--porcelain',
        ...ranges(lines).flatMap(([from, to]) => ['-L', `${from},${to}`]),
        base,
        '--',
        file.oldPath,
      ];
      let out: string;
      try {
        out = await git(clone, args);
      } catch {
        continue;
      }
      let current: { sha: string; line: number } | undefined;
      for (const line of out.split('\n')) {
        const header = PORCELAIN_HEADER.exec(line);
        if (header) current = { sha: header[1], line: Number(header[2]) };
        else if (
          line.startsWith('\t') &&
          current &&
          wanted.has(current.line) &&
          !seen.has(`${current.sha}:${current.line}`)
        ) {
          seen.add(`${current.sha}:${current.line}`);
          blamed.push({ sha: current.sha, path: file.oldPath, line: current.line, text: line.slice(1) });
        }
      }
    }
  }
  return blamed;
}

/** Sorted line numbers as inclusive runs, one `-L` each. */
function ranges(lines: number[]): [number, number][] {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const line of sorted) {
    const last = runs[runs.length - 1];
    if (last && line === last[1] + 1) last[1] = line;
    else runs.push([line, line]);
  }
  return runs;
}
