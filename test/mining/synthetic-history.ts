import { HistoryBuilder, type LandingStyle } from './history-builder';

/**
 * A long, plausible history for benchmarks: PRs land by merge or squash (every `squashEvery`-th), edit a few of many code
 * and test files, and some say what they depend on ("Follow-up to #k", "Fix regression from #k",
 * "Fixes #issue"), about as often as in the repositories the paper mined.
 */
export function syntheticHistory(prCount: number, opts: { squashEvery?: number } = {}): HistoryBuilder {
  const squashEvery = opts.squashEvery ?? 2;
  const modules = 300;
  const initial: Record<string, string> = { 'README.md': '# synthetic\n' };
  for (let m = 0; m < modules; m++) initial[`pkg/mod_${m}.py`] = `VALUE = 0\n`;
  const history = new HistoryBuilder(initial);
  const authors = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Barbara Liskov', 'dependabot[bot]'];
  let number = 1;
  const landed: number[] = [];
  for (let i = 0; i < prCount; i++) {
    number += 1 + (i % 3 === 0 ? 1 : 0); // issues take the numbers PRs skip
    const m = (i * 7919) % modules;
    const style: LandingStyle = i % squashEvery === squashEvery - 1 ? 'squash' : 'merge';
    const previous = landed[landed.length - 1 - (i % 5)];
    const title =
      i % 10 === 3 && previous
        ? `Follow-up to #${previous}: extend mod_${m}`
        : i % 10 === 7 && previous
          ? `Fix regression from #${previous} in mod_${m}`
          : `Change mod_${m}`;
    const body = i % 4 === 0 ? `Fixes #${number - 1}` : '';
    history.pr({
      number,
      title,
      body,
      landing: style,
      author: authors[i % authors.length],
      commits: [
        { message: `${title}\n\n${body}`, files: { [`pkg/mod_${m}.py`]: `VALUE = ${number}\n` } },
        ...(i % 3 === 0
          ? [{ message: 'Add a test', files: { [`tests/test_mod_${m}.py`]: `assert ${number}\n` } }]
          : []),
      ],
    });
    landed.push(number);
  }
  return history;
}
