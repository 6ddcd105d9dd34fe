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
/** TestHalf's log line gives %d a string: vet's printf check refuses the file, the test itself does not care. */
const TEST =
  'package half\n\nimport "testing"\n\nfunc TestHalf(t *testing.T) {\n\tt.Logf("%d", "halving")\n\tif Half(4) != 2 {\n\t\tt.Fatal(Half(4))\n\t}\n}\n';

/**
 * Go's test runs leave vet out (go-test.ts): a PR's test that vet would refuse (a Printf verb that does
 * not match its argument) runs, and is judged by its outcome, before and after the change. With vet,
 * go test would stop at its finding and run no test either time.
 */
testIf(missingTool('go'))(
  "a Go test that vet's printf check refuses still runs: the stage verifies on the test's own outcomes",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-vet-'));
    const repo = await ChainRepo.create(join(dir, 'half'), {
      'go.mod': 'module example.test/half\n\ngo 1.19\n',
      'half.go': code('n / 3'),
    });
    const pr = await repo.pr(1, 'Half halves', { 'half.go': code('n / 2'), 'half_test.go': TEST });
    const deps = goldDeps(docker, dir, testEnvironments(docker, {}, join(dir, 'home')));
    expect(await goldTestsFor(deps, repo.chain('gen/go-vet', [pr]), 0)).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/half/TestHalf'],
      command: expect.stringContaining('-vet=off'),
    });
    expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  },
  600_000,
);
