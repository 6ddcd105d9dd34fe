/** Real engines, so tests run one file at a time: 2 cores, one Docker daemon, one dev server. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 180_000,
  maxWorkers: 1,
  setupFiles: ['<rootDir>/test/support/quiet-sdk.ts'],
};
