import type { DemoRepo, Person } from './demo-repo';
import {
  GITIGNORE,
  PYPROJECT,
  TEST_STATS,
  TEST_VARIANCE,
  initPy,
  readme,
  statsPy,
  testMedianPy,
} from './tally-sources';

const ADA: Person = { name: 'Ada Marsh', email: 'ada@tally.example' };
const BEN: Person = { name: 'Ben Okafor', email: 'ben@tally.example' };
const CHEN: Person = { name: 'Chen Wei', email: 'chen@tally.example' };

/**
 * The demo's history: #2 → #4 → #6 form a chain (feature, regression fix, follow-up); #3 and #5 land
 * in between and reference nothing, as unrelated work does.
 */
export async function writeTallyHistory(repo: DemoRepo): Promise<void> {
  await repo.commit(
    ADA,
    'Start tally with mean()\n\nA tiny statistics package with its first helper, mean(), and pytest tests.',
    {
      '.gitignore': GITIGNORE,
      'README.md': readme(false),
      'pyproject.toml': PYPROJECT,
      'tally/__init__.py': initPy({ median: 'none', variance: false }),
      'tally/stats.py': statsPy({ median: 'none', variance: false }),
      'tests/test_stats.py': TEST_STATS,
    },
  );

  await repo.branch('demo/median');
  await repo.commit(
    BEN,
    'Add median() to tally.stats\n\n' +
      'median() sorts a copy of the input and returns its middle element, so callers no longer ' +
      'sort by hand. Empty input raises ValueError, like mean() does.',
    {
      'tally/__init__.py': initPy({ median: 'buggy', variance: false }),
      'tally/stats.py': statsPy({ median: 'buggy', variance: false }),
    },
  );
  await repo.commit(BEN, 'Test median() on odd-length and single-value lists', {
    'tests/test_median.py': testMedianPy('buggy'),
  });
  await repo.merge(ADA, 'demo/median', 'Merge pull request #2 from demo/median\n\nAdd median() to tally.stats');

  await repo.squash(
    CHEN,
    'Docs: describe installation in README (#3)\n\n' +
      'Explain how to install the package from a checkout with pip, including the test extra.',
    { 'README.md': readme(true) },
  );

  await repo.squash(
    BEN,
    'Fix regression from #2: median of even-length lists (#4)\n\n' +
      'median() introduced in #2 returned the upper middle element for lists of even length: ' +
      'median([1, 2, 3, 4]) gave 3 instead of 2.5. Average the two middle values instead.\n\n' +
      'Adds a test with an even number of values, which the odd-length tests from #2 never covered.',
    {
      'tally/stats.py': statsPy({ median: 'fixed', variance: false }),
      'tests/test_median.py': testMedianPy('fixed'),
    },
  );

  await repo.branch('demo/variance');
  await repo.commit(
    CHEN,
    'Add variance() to tally.stats\n\n' +
      'Population variance, computed around mean(). Empty input raises ValueError like the other helpers.',
    {
      'tally/__init__.py': initPy({ median: 'fixed', variance: true }),
      'tally/stats.py': statsPy({ median: 'fixed', variance: true }),
      'tests/test_variance.py': TEST_VARIANCE,
    },
  );
  await repo.merge(ADA, 'demo/variance', 'Merge pull request #5 from demo/variance\n\nAdd variance() to tally.stats');

  // The reference to #4 lives only in the branch commit: the landing merge has no body.
  await repo.branch('demo/median-key');
  await repo.commit(
    BEN,
    'Follow-up to #4: let median() take a key function\n\n' +
      'Records are often dicts or objects rather than numbers. An optional key maps each item to ' +
      'the number whose median is wanted, in the spirit of sorted(key=...). Even-length input keeps ' +
      'averaging the two middle values.',
    {
      'tally/stats.py': statsPy({ median: 'keyed', variance: true }),
      'tests/test_median.py': testMedianPy('keyed'),
    },
  );
  await repo.merge(ADA, 'demo/median-key', 'Merge pull request #6 from demo/median-key');
}
