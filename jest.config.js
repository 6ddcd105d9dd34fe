const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * ESM-only dependencies (@octokit ≥ 21 and the small packages it imports). Node 20 can require()
 * them at run time, but jest's CommonJS loader cannot, so ts-jest transpiles exactly these.
 */
const ESM_ONLY = ['@octokit', 'universal-user-agent', 'before-after-hook', 'json-with-bigint', 'content-type'];

/**
 * Test files whose first line starts with this need no Docker engine: `npm test` runs them first,
 * beside the type check and the lint, with DOCKER_HOST pointing nowhere, so one that does use Docker
 * fails there every time (scripts/test.sh).
 */
const NO_DOCKER_MARK = '// no-docker:';
const noDocker = readdirSync(join(__dirname, 'test'), { recursive: true })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => join(__dirname, 'test', file))
  .filter((file) => readFileSync(file, 'utf8').startsWith(NO_DOCKER_MARK));
const asGlob = (path) => path.replace(/[()[\]{}*?!+@]/g, '\\$&');
const asRegex = (path) => `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
/** CHAINSMITH_TESTS=no-docker runs those files only, =docker all the others; unset, every file. */
const only = process.env.CHAINSMITH_TESTS;
if (only && only !== 'no-docker' && only !== 'docker')
  throw new Error(`CHAINSMITH_TESTS is ${only}: it can be no-docker, docker or unset`);

/**
 * Real engines, shared by the test files that run at once: each file scopes what it creates (task
 * queues, workflow ids, container labels, data directories) to itself, so four run side by side; most
 * of a file's time is spent waiting on the dev server, dockerd or a compiler in a container, not on
 * these 2 cores. A test that stops an engine starts one of its own (restart-docker.test.ts,
 * restart-temporal.test.ts); workflows run in a Temporal namespace of the suite's own (test/support/namespace.ts).
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  setupFiles: ['<rootDir>/test/support/test-env.ts'],
  testMatch: only === 'no-docker' ? noDocker.map(asGlob) : ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(only === 'docker' ? noDocker.map(asRegex) : [])],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    '^.+\\.js$': [
      'ts-jest',
      { diagnostics: false, tsconfig: { allowJs: true, isolatedModules: true, module: 'commonjs', target: 'ES2022' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  testTimeout: 180_000,
  maxWorkers: 4,
  // The Temporal runtime and Docker's keep-alive sockets can hold the process open after the last test.
  forceExit: true,
};
