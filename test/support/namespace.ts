/**
 * The Temporal namespace the suite's workflows run in: not the machine's `default`, so that
 * `chainsmith status` after `npm test` lists none of the suite's chains beside the user's own.
 * Registered once per jest run (global-setup.ts); set for every test file (test-env.ts).
 */
export const TEST_NAMESPACE = 'chainsmith-test';
