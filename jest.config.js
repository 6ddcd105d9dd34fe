/**
 * ESM-only dependencies (@octokit ≥ 21 and the small packages it imports). Node 20 can require()
 * them at run time, but jest's CommonJS loader cannot, so ts-jest transpiles exactly these.
 */
const ESM_ONLY = ['@octokit', 'universal-user-agent', 'before-after-hook', 'json-with-bigint', 'content-type'];

/** Real engines, so tests run one file at a time: 2 cores, one Docker daemon, one dev server. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    '^.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, isolatedModules: true, module: 'commonjs', target: 'ES2022' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testTimeout: 180_000,
  maxWorkers: 1,
  // The Temporal runtime and Docker's keep-alive sockets can hold the process open after the last test.
  forceExit: true,
  setupFiles: ['<rootDir>/test/support/quiet-sdk.ts'],
};
