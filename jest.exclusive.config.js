/** The test files that stop or restart a shared engine (dockerd): one at a time, before the rest, beside the static checks (scripts/test.sh). */
const base = require('./jest.config');

module.exports = { ...base, testMatch: ['**/*.exclusive.test.ts'], testPathIgnorePatterns: ['/node_modules/'], maxWorkers: 1 };
