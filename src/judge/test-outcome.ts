import { testPasses, type GoldTests, type TestOutcome, type TestSignal } from '../schemas';

/**
 * What the PR's tests say about the agent's result. With a gold validation and per-test outcomes,
 * every FAIL_TO_PASS test must now pass and every PASS_TO_PASS test must still pass; otherwise only
 * the exit code of the PR's tests is known. No signal at all (the PR changes no test) is undefined.
 */
export function testOutcome(signal: TestSignal | undefined, gold?: GoldTests): TestOutcome | undefined {
  if (!signal?.ran) return undefined;
  const checking = gold ? gold.failToPass.length + gold.passToPass.length : 0;
  if (!gold || !signal.cases || checking === 0) {
    return { checked: 'exit-code', passed: signal.passed, share: signal.passed ? 1 : 0, failing: [] };
  }
  const now = new Map(signal.cases.map((c) => [c.id, c.outcome]));
  const failing = [...gold.failToPass, ...gold.passToPass].filter((id) => !testPasses(now.get(id)));
  const count = (ids: string[]) => ({ passing: ids.filter((id) => testPasses(now.get(id))).length, total: ids.length });
  return {
    checked: 'per-test',
    passed: failing.length === 0,
    share: (checking - failing.length) / checking,
    failing,
    failToPass: count(gold.failToPass),
    passToPass: count(gold.passToPass),
  };
}
