import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describeEnvironment } from '../../../../src/environments/describe';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const run = promisify(execFile);
const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

const calc = (body: string) =>
  `package calc // import "example.test/calc"\n\n// Add adds.\nfunc Add(a, b int) int { return ${body} }\n`;
const twice =
  'package twice\n\nimport "example.test/calc"\n\n// Twice doubles.\nfunc Twice(a int) int { return calc.Add(a, a) }\n';
const test = (name: string, check: string) =>
  `package twice\n\nimport (\n\t"testing"\n\n\t"github.com/pkg/errors"\n)\n\nfunc ${name}(t *testing.T) {\n\tif !(${check}) {\n\t\tt.Fatal(errors.New("${name}"))\n\t}\n}\n`;

const DIFF =
  'package twice\n\nimport "github.com/pmezard/go-difflib/difflib"\n\n// Diff is a unified diff of a and b.\nfunc Diff(a, b string) string {\n\ts, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: difflib.SplitLines(a), B: difflib.SplitLines(b)})\n\treturn s\n}\n';

/**
 * A Go repository of 2017, before go.mod: a root package whose import comment names its path, a
 * subpackage that imports it by that path, and a test-only dependency on github.com/pkg/errors, which
 * no manifest names. It builds in GOPATH mode with the errors version published by then as the host's
 * module proxy dates its versions (upstream, v0.8.0 of 2016-09; a mirror may date a version by when it
 * took it in: asked of the proxy here, as a linear scan), and its tests report under the real import path. A second PR's
 * change imports github.com/pmezard/go-difflib, which nothing at its base does.
 */
testIf(missingTool('go'))(
  'a GOPATH-era repository builds under its import path with dependencies of its date, and its PR verifies',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gopath-'));
    const repo = await ChainRepo.create(
      join(dir, 'calc'),
      {
        'calc.go': calc('a - b'),
        'twice/twice.go': twice,
        'twice/keep_test.go': test('TestKeep', 'Twice(0) == 0'),
      },
      new Date('2017-06-01T00:00:00Z'),
    );
    const fix = await repo.pr(1, 'Add adds', {
      'calc.go': calc('a + b'),
      'twice/twice_test.go': test('TestTwice', 'Twice(2) == 4'),
    });
    const diff = await repo.pr(2, 'Diff', {
      'twice/diff.go': DIFF,
      'twice/diff_test.go': test('TestDiff', 'Diff("a", "b") != ""'),
    });
    const chain = repo.chain('gen/gopath', [fix, diff]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'home')));
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/calc/twice/TestTwice'],
      passToPass: ['example.test/calc/twice/TestKeep'],
    });
    // Only the PR's change imports go-difflib: fetched for its stage all the same.
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 1)).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/calc/twice/TestDiff'],
    });
    expect((await environments.forStage(chain, 1)).manifest.resolution?.packages).toContainEqual({
      name: 'github.com/pmezard/go-difflib',
      version: 'v1.0.0',
    });
    const env = await environments.forStage(chain, 0);
    expect(env.recipe).toMatchObject({ language: 'go', origin: 'go-gopath', manifests: [] });
    const dated = await newestPublishedBy('github.com/pkg/errors', new Date('2017-06-01T00:00:00Z'));
    expect(env.manifest.resolution).toMatchObject({
      lock: 'resolved',
      packages: [{ name: 'github.com/pkg/errors', version: dated }],
    });
    expect(env.manifest.resolution?.notes).toContain(
      `github.com/pkg/errors ${dated}: the newest version published by 2017-06-01`,
    );
    // The agent is told where go runs: from the checkout itself the packages lose their import paths.
    expect(describeEnvironment(env)).toContain('from `/home/agent/go/src/example.test/calc`');
  },
  900_000,
);

/** The last of `module`'s tagged versions whose publication the host's module proxy dates at or before `date`. */
async function newestPublishedBy(module: string, date: Date): Promise<string | undefined> {
  const go = async <T>(args: string[]) =>
    JSON.parse((await run('go', args, { cwd: tmpdir(), env: { ...process.env, GO111MODULE: 'on' } })).stdout) as T;
  const { Versions = [] } = await go<{ Versions?: string[] }>(['list', '-m', '-versions', '-json', module]);
  let found: string | undefined;
  for (const v of Versions) {
    const { Time } = await go<{ Time?: string }>(['list', '-m', '-json', `${module}@${v}`]);
    if (Time && new Date(Time) <= date) found = v;
  }
  return found;
}

const GONE = 'github.com/chainsmith-test-nobody/gone';
const old = (body: string) =>
  `package old\n\nimport "${GONE}"\n\n// Old is gone's value ${body}.\nfunc Old() int { return gone.V ${body} }\n`;

/**
 * A GOPATH-era repository one of whose packages imports a repository the proxy does not serve (gone,
 * as code.google.com's were): the era's environment is built without it, a PR whose tests do not need
 * it verifies, and one whose tests do is `dependencies-unresolvable`, naming the package.
 */
testIf(missingTool('go'))(
  "an import nothing serves leaves out only its importers' tests, and a stage whose tests need it says so",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gopath-gone-'));
    const repo = await ChainRepo.create(
      join(dir, 'calc'),
      { 'calc.go': calc('a - b'), 'old/old.go': old('+ 0') },
      new Date('2016-06-01T00:00:00Z'),
    );
    const fix = await repo.pr(1, 'Add adds', {
      'calc.go': calc('a + b'),
      'calc_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("Add")\n\t}\n}\n',
    });
    const bump = await repo.pr(2, 'Old is one more', {
      'old/old.go': old('+ 1'),
      'old/old_test.go': `package old\n\nimport "testing"\n\nfunc TestOld(t *testing.T) {\n\tif Old() != 2 {\n\t\tt.Fatal("Old")\n\t}\n}\n`,
    });
    const chain = repo.chain('gen/gopath-gone', [fix, bump]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'home')));
    const deps = goldDeps(docker, dir, environments);
    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/calc/TestAdd'],
    });
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution?.unserved).toEqual([
      { name: GONE, why: 'no module the Go module proxy serves holds it' },
    ]);
    expect(env.manifest.resolution?.notes).toContain(`${GONE} left out: no module the Go module proxy serves holds it`);
    const unresolvable = await goldTestsFor(deps, chain, 1);
    expect(unresolvable.status).toBe('no-verifying-test');
    expect(unresolvable.reason).toMatchObject({
      kind: 'dependencies-unresolvable',
      summary: `the PR's tests need ${GONE}, which the environment was built without (no module the Go module proxy serves holds it)`,
    });
    expect(unresolvable.reason?.tail).toContain(`cannot find package "${GONE}"`);
  },
  900_000,
);
