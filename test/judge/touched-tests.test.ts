import { touchedFunctions, touchedTest } from '../../src/judge/touched-tests';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from '../support/real-repos';

const withCobra = bundlePath('spf13+cobra') ? test : test.skip;
if (!bundlePath('spf13+cobra')) console.warn(`skipping: no spf13+cobra.bundle in ${SHARED_REPOS}`);

withCobra("cobra #2210: the test functions its diff edits are named by git's Go rules, and their subtests match", async () => {
  // #2210 adds cases inside existing table-driven tests; its test file does not build at the base.
  const repo = await cloneBundle('spf13+cobra');
  const pr = (await pullRequestChain(repo, 'spf13/cobra', 2210, 'main')).prs[0];
  const touched = await touchedFunctions(repo, pr.baseSha, pr.mergeSha, ['completions_test.go']);
  expect(touched).toContain('TestFlagNameCompletionRepeat');
  expect(touched).not.toContain('func');
  expect(touchedTest('github.com/spf13/cobra/TestFlagNameCompletionRepeat/case_1', touched)).toBe(true);
  expect(touchedTest('github.com/spf13/cobra/TestNoArgs', touched)).toBe(false);
  expect(await touchedFunctions(repo, pr.baseSha, pr.mergeSha, [])).toEqual(new Set());
}, 120_000);
