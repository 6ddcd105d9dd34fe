// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { fileKind } from '../../src/mining/file-kind';

test.each([
  ['tests/test_stats.py', 'test'],
  ['pkg/test/helpers.py', 'test'],
  ['src/__tests__/app.ts', 'test'],
  ['tally/test_median.py', 'test'],
  ['tally/median_test.py', 'test'],
  ['src/app.test.ts', 'test'],
  ['src/app.spec.js', 'test'],
  ['tests/data/sample.csv', 'test'],
  ['src/tests.rs', 'test'],
  ['src/map/test.rs', 'test'],
  ['src/testing.rs', 'code'],
  ['tally/stats.py', 'code'],
  ['src/index.ts', 'code'],
  ['lib/contest.py', 'code'],
  ['README.md', 'other'],
  ['pyproject.toml', 'other'],
  ['docs/testing.md', 'other'],
  ['Makefile', 'other'],
  ['vendor/github.com/pkg/errors/errors.go', 'other'],
  ['third_party/zlib/inflate.c', 'other'],
  ['web/node_modules/left-pad/index.js', 'other'],
  ['api/v1/service.pb.go', 'other'],
  ['proto/service_pb2.py', 'other'],
  ['static/app.min.js', 'other'],
  ['pkg/apis/zz_generated.deepcopy.go', 'other'],
  ['src/Parser.generated.ts', 'other'],
  ['lib/vendoring.py', 'code'],
  ['tests/test_generated.py', 'test'],
  ['src/Vendor/Payments.php', 'code'],
  ['src/generator.ts', 'code'],
])('%s is %s', (path, kind) => {
  expect(fileKind(path)).toBe(kind);
});
