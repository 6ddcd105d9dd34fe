import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

const code = (body: string) => `package half\n\n// Half halves.\nfunc Half(n int) int { return ${body} }\n`;
const TEST =
  'package half\n\nimport "testing"\n\nfunc TestHalf(t *testing.T) {\n\tif Half(4) != 2 {\n\t\tt.Fatal(Half(4))\n\t}\n}\n';

/**
 * A go.mod of 2019 that requires nothing, beside a package importing a module (the era's go added the requirement
 * as it built; Go 1.16 on refuses). The package the PR tests imports nothing outside the module: it builds and
 * its stage verifies, where the whole environment failed to build before.
 */
testIf(missingTool('go'))(
  'a go.mod that requires no module for one package’s import: the other packages build and their stage verifies',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-unrequired-'));
    const repo = await ChainRepo.create(
      join(dir, 'half'),
      {
        'go.mod': 'module example.test/half\n',
        'half.go': code('n / 3'),
        'errs/errs.go': 'package errs\n\nimport "github.com/pkg/errors"\n\n// New wraps.\nvar New = errors.New\n',
      },
      new Date('2019-02-27T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Half halves', { 'half.go': code('n / 2'), 'half_test.go': TEST });
    const deps = goldDeps(docker, dir, testEnvironments(docker, {}, join(dir, 'home')));
    // Without the rule: the environment fails to build at `go build ./...` ("no required module provides package").
    expect(await goldTestsFor(deps, repo.chain('gen/go-unrequired', [pr]), 0)).toMatchObject({
      status: 'verified',
      failToPass: [expect.stringContaining('TestHalf')],
    });
  },
  900_000,
);

/** Any other error of the build still fails it: a package that does not compile is no import go.mod left out. */
testIf(missingTool('go'))(
  'a package that does not compile still fails the environment’s build, its error in the reason',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-uncompilable-'));
    const repo = await ChainRepo.create(join(dir, 'half'), {
      'go.mod': 'module example.test/half\n\ngo 1.19\n',
      'half.go': code('n / 3'),
      'errs/errs.go': 'package errs\n\n// New is undefined.\nvar New = undefinedThing\n',
    });
    const pr = await repo.pr(1, 'Half halves', { 'half.go': code('n / 2'), 'half_test.go': TEST });
    const deps = goldDeps(docker, dir, testEnvironments(docker, {}, join(dir, 'home')));
    await expect(goldTestsFor(deps, repo.chain('gen/go-uncompilable', [pr]), 0)).rejects.toMatchObject({
      reason: {
        kind: 'build-failed',
        // The command that failed, not the whole test around it.
        command: 'if ! out=$(go build ./... 2>&1 >/dev/null); then … (4 more lines)',
        tail: expect.stringContaining('undefined: undefinedThing'),
      },
    });
  },
  900_000,
);
