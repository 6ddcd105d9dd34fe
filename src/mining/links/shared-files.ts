import type { Edge, PullRequestRecord } from '../../schemas';

/** A PR that touches more code files than this is a sweep (a rename, a reformat), not a dependency. */
const MAX_FILES = 30;

/**
 * Weak edges from each PR to the PRs that last changed the same code files before it. Off by
 * default: two PRs editing one file are often unrelated, so these only join PRs no text links.
 */
export function sharedFileEdges(prs: readonly PullRequestRecord[]): Edge[] {
  const ordered = [...prs].sort((a, b) => a.mergedAt.localeCompare(b.mergedAt) || a.number - b.number);
  const lastChange = new Map<string, number>();
  const edges: Edge[] = [];
  for (const pr of ordered) {
    const paths = pr.files.filter((file) => file.kind === 'code').map((file) => file.path);
    if (paths.length > MAX_FILES) continue;
    const shared = new Map<number, string[]>();
    for (const path of paths) {
      const previous = lastChange.get(path);
      if (previous !== undefined && previous !== pr.number)
        shared.set(previous, [...(shared.get(previous) ?? []), path]);
      lastChange.set(path, pr.number);
    }
    for (const [to, files] of shared) {
      edges.push({
        from: pr.number,
        to,
        kind: 'shares-files',
        evidence: `both change ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`,
        // More shared files, a little more likely related; never as sure as words.
        confidence: Math.min(0.4, 0.2 + 0.05 * (files.length - 1)),
        source: { field: 'files', start: 0, end: 0 },
      });
    }
  }
  return edges;
}
