import { HistoryBuilder, type LandingStyle, type PrSpec } from './history-builder';

/** PR numbers of a twelve-step run of follow-ups, in order. */
export const PLUGIN_STEPS = Array.from({ length: 12 }, (_, i) => 50 + i);

/**
 * One project history for acme/widgets told twice, once landed with GitHub's merge button and once
 * with its squash button. Issue numbers (3, 12) sit between PR numbers, as on GitHub.
 */
export function widgetsStory(style: Extract<LandingStyle, 'merge' | 'squash'>): HistoryBuilder {
  const history = new HistoryBuilder({ 'widgets/__init__.py': '', 'README.md': '# widgets\n' });
  const pr = (number: number, title: string, commits: PrSpec['commits'], author?: string) =>
    history.pr({ number, title, commits, author, landing: style, pullRef: style === 'squash' });

  pr(2, 'Add a cache layer', [
    { message: 'Add a cache layer', files: { 'widgets/cache.py': 'CACHE = {}\n' } },
    { message: 'Test the cache', files: { 'tests/test_cache.py': 'def test_cache(): pass\n' } },
  ]);
  pr(4, 'Fix regression from #2: cache never expires', [
    {
      message: 'Fix regression from #2: cache never expires\n\nFixes #3.',
      files: { 'widgets/cache.py': 'CACHE = {}\nTTL = 60\n' },
    },
  ]);
  // The link to #4 is only in the branch's second commit, not in the PR title.
  pr(5, 'Expire cache entries on write', [
    { message: 'Expire entries on write', files: { 'widgets/cache.py': 'CACHE = {}\nTTL = 60\nEXPIRE = True\n' } },
    {
      message: 'Add a test\n\nFollow-up to #4: the TTL is now enforced on write too.',
      files: { 'tests/test_expiry.py': 'def test_expiry(): pass\n' },
    },
  ]);
  pr(6, 'Revert "Expire cache entries on write"', [
    {
      message: 'Revert "Expire cache entries on write"\n\nThis reverts commit {{sha:5}}.',
      files: { 'widgets/cache.py': 'CACHE = {}\nTTL = 60\n' },
    },
  ]);
  pr(7, 'Reapply cache expiry with the race fixed', [
    {
      message: 'Reapply #5 with the race fixed',
      files: { 'widgets/cache.py': 'CACHE = {}\nTTL = 60\nEXPIRE = "locked"\n' },
    },
  ]);
  pr(8, 'Document the cache', [
    { message: 'Describe the cache of #2', files: { 'README.md': '# widgets\n\nA cache.\n' } },
  ]);
  pr(
    9,
    'Bump pytest',
    [{ message: 'Bump pytest, as #2 needs', files: { 'widgets/_deps.py': 'PYTEST = "8"\n' } }],
    'dependabot[bot]',
  );
  pr(10, 'Use the cache in the CLI', [
    {
      message: 'Use the cache in the CLI\n\nLike https://github.com/acme/widgets/pull/7 and other/lib#12.',
      files: { 'widgets/cli.py': 'from widgets.cache import CACHE\n' },
    },
  ]);
  pr(11, 'Stop the CLI test from flaking', [
    {
      message: 'Stop the CLI test from flaking\n\ncloses acme/widgets#10',
      files: { 'tests/test_cli.py': 'def test_cli(): pass\n' },
    },
  ]);
  // A revert chain: #41 reverts #40, #42 reverts the revert.
  pr(40, 'Add a --json flag', [{ message: 'Add a --json flag', files: { 'widgets/json_flag.py': 'JSON = True\n' } }]);
  pr(41, 'Revert "Add a --json flag"', [
    {
      message: 'Revert "Add a --json flag"\n\nThis reverts commit {{sha:40}}.',
      files: { 'widgets/json_flag.py': null },
    },
  ]);
  pr(42, 'Revert "Revert "Add a --json flag""', [
    {
      message: 'Revert "Revert "Add a --json flag""\n\nThis reverts commit {{sha:41}}.',
      files: { 'widgets/json_flag.py': 'JSON = True\n' },
    },
  ]);
  // Twelve PRs, each a follow-up to the one before: longer than any cap.
  PLUGIN_STEPS.forEach((number, i) => {
    const previous = i === 0 ? '' : `Follow-up to #${number - 1}: `;
    pr(number, `${previous}step ${i + 1} of the plugin API`, [
      { message: `${previous}step ${i + 1}`, files: { [`widgets/plugin_${i}.py`]: `STEP = ${i}\n` } },
    ]);
  });
  return history;
}
