import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

const code = (body: string) => `package half\n\n// Half halves.\nfunc Half(n int) int { return ${body} }\n`;
/** Calls a function the package does not have: the test package does not build, before or after the change. */
const TEST =
  'package half\n\nimport "testing"\n\nfunc TestHalf(t *testing.T) {\n\tif Halve(4) != 2 {\n\t\tt.Fatal(Halve(4))\n\t}\n}\n';

/**
 * The reason of a stage whose Go tests do not build names the go test command that ran and the
 * compiler's error. The runner's first line runs the tests (go-test.ts), and a reason keeps its
 * command's head; Go 1.24 and later print a test package's build errors in `go test -json`'s events
 * (`build-output`), not on stderr as before, and the runner shows them with the tests' output.
 */
testIf(missingTool('go'))(
  "a Go ≥ 1.24 test package that does not build: the stage's reason shows the go test command and the compiler's error",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-build-output-'));
    const repo = await ChainRepo.create(join(dir, 'half'), {
      'go.mod': 'module example.test/half\n\ngo 1.24\n',
      'half.go': code('n / 3'),
    });
    const pr = await repo.pr(1, 'Half halves', { 'half.go': code('n / 2'), 'half_test.go': TEST });
    const deps = goldDeps(docker, dir, testEnvironments(docker, {}, join(dir, 'home')));
    const gold = await goldTestsFor(deps, repo.chain('gen/go-build-output', [pr]), 0);
    expect(gold).toMatchObject({
      status: 'no-verifying-test',
      environment: { toolchain: expect.stringContaining('go1.24') },
      // The reason's command (its head kept) names the tests it ran.
      reason: {
        kind: 'tests-not-runnable',
        exitCode: 1,
        command: expect.stringMatching(/^go_test\(\) \{ go test -json /),
      },
    });
    expect(gold.reason?.tail).toContain('half_test.go:6:5: undefined: Halve');
    expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  },
  900_000,
);
