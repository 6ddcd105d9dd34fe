import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/** A package whose function is C, called through cgo. */
const code = (body: string) =>
  `package twice\n\n// int twice(int x) { return ${body}; }\nimport "C"\n\n// Twice doubles n in C.\nfunc Twice(n int) int { return int(C.twice(C.int(n))) }\n`;
const TEST =
  'package twice\n\nimport "testing"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(4) != 8 {\n\t\tt.Fatal(Twice(4))\n\t}\n}\n';

/**
 * A Go package that imports "C" builds and its tests run: the toolchain image has a C compiler and
 * cgo is Go's default. With cgo off, Go leaves every file that imports "C" out of the build, so such
 * a package has no Go files and its tests cannot run, before or after the change.
 */
testIf(missingTool('go'))(
  'a cgo package: its tests build and run, and the fix verifies',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-cgo-'));
    const repo = await ChainRepo.create(join(dir, 'twice'), {
      'go.mod': 'module example.test/twice\n\ngo 1.19\n',
      'twice.go': code('x + x + 1'),
    });
    const pr = await repo.pr(1, 'Twice doubles', { 'twice.go': code('x + x'), 'twice_test.go': TEST });
    const deps = goldDeps(docker, dir, testEnvironments(docker, {}, join(dir, 'home')));
    const gold = await goldTestsFor(deps, repo.chain('gen/go-cgo', [pr]), 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['example.test/twice/TestTwice'] });
  },
  900_000,
);
