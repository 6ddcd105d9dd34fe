/** The test files that stop or restart a shared engine (dockerd): one at a time, after the rest. */
const base = require('./jest.config');

module.exports = { ...base, testMatch: ['**/*.exclusive.test.ts'], testPathIgnorePatterns: ['/node_modules/'], maxWorkers: 1 };
