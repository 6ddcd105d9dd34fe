import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GO_STORE } from '../../../../src/environments/languages/go/detect';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/** github.com/pkg/errors: v0.9.0 added errors.Is, which v0.8.1 lacks. The checksums are the registry's, as go.sum records them. */
const SUMS: Record<string, string> = {
  'v0.8.1':
    'github.com/pkg/errors v0.8.1 h1:iURUrRGxPUNPdy5/HRSm+Yj6okJ6UtLINN0Q9M4+h3I=\ngithub.com/pkg/errors v0.8.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=\n',
  'v0.9.1':
    'github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\ngithub.com/pkg/errors v0.9.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=\n',
};
const gomod = (version: string) => `module example.test/roots\n\ngo 1.19\n\nrequire github.com/pkg/errors ${version}\n`;
const code = (root: string, extra = '') =>
  `package roots\n\nimport "github.com/pkg/errors"\n\n// Root is the error err wraps.\nfunc Root(err error) error { return ${root} }\n${extra}\n// Wrap wraps.\nfunc Wrap(err error) error { return errors.Wrap(err, "wrapped") }\n`;
const IS =
  '\n// Is reports whether err wraps target.\nfunc Is(err, target error) bool { return errors.Is(err, target) }\n';
const test = (name: string, check: string) =>
  `package roots\n\nimport (\n\t"testing"\n\n\t"github.com/pkg/errors"\n)\n\nfunc ${name}(t *testing.T) {\n\tbase := errors.New("base")\n\tif !(${check}) {\n\t\tt.Fatal("${name}")\n\t}\n}\n`;

/**
 * Two PRs of a Go module in two dependency eras: #1 on github.com/pkg/errors v0.8.1, #2 after go.mod
 * moved to v0.9.1, whose new errors.Is its code and test use. The modules live in the repository's
 * store, not in the image: one image serves both stages, and each stage compiles against the version
 * its own go.mod requires (v0.8.1 has no errors.Is, so stage 2 verifies only on v0.9.1's sources).
 */
testIf(missingTool('go'))(
  "stages of two dependency eras share one Go image; each builds against its own go.mod's module versions from the store",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-store-'));
    const repo = await ChainRepo.create(join(dir, 'roots'), {
      'go.mod': gomod('v0.8.1'),
      'go.sum': SUMS['v0.8.1'],
      'roots.go': code('err'),
    });
    const fix = await repo.pr(1, 'Root unwraps', {
      'roots.go': code('errors.Cause(err)'),
      'roots_test.go': test('TestRoot', 'Root(Wrap(base)) == base'),
    });
    await repo.commit('Require github.com/pkg/errors v0.9.1', {
      'go.mod': gomod('v0.9.1'),
      'go.sum': SUMS['v0.9.1'],
    });
    const is = await repo.pr(2, 'Is', {
      'roots.go': code('errors.Cause(err)', IS),
      'is_test.go': test('TestIs', 'Is(Wrap(base), base)'),
    });
    const chain = repo.chain('gen/go-store', [fix, is]);
    // A data directory of its own: the store starts empty.
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'home')));
    const deps = goldDeps(docker, dir, environments);
    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/roots/TestRoot'],
    });
    expect(await goldTestsFor(deps, chain, 1)).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/roots/TestIs'],
      passToPass: ['example.test/roots/TestRoot'],
    });
    // One image for both eras; each stage is told its own version.
    expect(environments.built).toHaveLength(1);
    const [early, late] = [await environments.forStage(chain, 0), await environments.forStage(chain, 1)];
    expect(late.image).toBe(early.image);
    expect(early.manifest.resolution?.packages).toContainEqual({ name: 'github.com/pkg/errors', version: 'v0.8.1' });
    expect(late.manifest.resolution?.packages).toContainEqual({ name: 'github.com/pkg/errors', version: 'v0.9.1' });
    const [store] = Object.keys(late.mounts ?? {});
    expect(late.mounts).toEqual({ [store]: GO_STORE });
    // Both versions are in the store; only v0.9.1 has errors.Is (go113.go).
    expect(existsSync(join(store, 'github.com/pkg/errors@v0.8.1/errors.go'))).toBe(true);
    expect(existsSync(join(store, 'github.com/pkg/errors@v0.8.1/go113.go'))).toBe(false);
    expect(existsSync(join(store, 'github.com/pkg/errors@v0.9.1/go113.go'))).toBe(true);
    // The image holds no module cache of its own.
    const own = execFileSync(
      'docker',
      [
        'run',
        '--rm',
        '--network',
        'none',
        '--entrypoint',
        'sh',
        late.image,
        '-c',
        'ls /home/agent/go/pkg/mod 2>&1 || true',
      ],
      { encoding: 'utf8' },
    );
    expect(own).toMatch(/No such file/);
  },
  600_000,
);
