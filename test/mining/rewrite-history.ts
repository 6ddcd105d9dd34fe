import { HistoryBuilder } from './history-builder';

/** `n` numbered assignments (`tag_1 = 1` …), one per line. */
export const numberedLines = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${tag}_${i + 1} = ${i + 1}`).join('\n') + '\n';

/** `text` with `count` lines from line `from` (0-based) rewritten: the rewrite blame leads back to their author. */
export function rewriteLines(text: string, from: number, count: number, tag: string): string {
  const all = text.split('\n');
  all.splice(from, count, ...Array.from({ length: count }, (_, i) => `${tag}_${from + i + 1} = 0`));
  return all.join('\n');
}

/**
 * A code-history candidate and nothing in either PR's words: #1 adds a parser, #2 rewrites four of
 * its lines. Only blame links them, so a link judge decides whether they stay linked.
 */
export function parserRewriteHistory(): HistoryBuilder {
  const parser = numberedLines('parser', 12);
  return new HistoryBuilder({ 'pkg/__init__.py': '' })
    .pr({
      number: 1,
      title: 'Add the parser',
      body: 'A parser for the config format.',
      landing: 'squash',
      commits: [{ message: 'Add the parser', files: { 'pkg/parser.py': parser } }],
    })
    .pr({
      number: 2,
      title: 'Handle empty input in the parser',
      landing: 'squash',
      commits: [
        {
          message: 'Handle empty input in the parser',
          files: { 'pkg/parser.py': rewriteLines(parser, 2, 4, 'parser') },
        },
      ],
    });
}
