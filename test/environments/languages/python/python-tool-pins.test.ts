import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { compareVersions } from '../../../../src/environments/languages/host-command';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { addFixChain, tallySetupPy } from '../../../support/python-project';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

// What a project of 2013 pinned for its tests: nose, and tox with the py library tox needed then.
const REQUIREMENTS = 'nose==1.2.1\npy==1.4.12\ntox==1.4.2\n';
const testFile = 'from tally import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n';

/**
 * A project of 2013 runs on the oldest Python here, 3.6, where its tests run under the pytest the
 * build adds (it pins none): 2.7.3, the first whose assertion rewriting works there, which requires
 * py 1.4.29. The project's requirements pin py 1.4.12 (for its tox), and that pin used to win over
 * the build's, so pytest failed at start-up in every run ('LocalPath' object has no attribute
 * 'isdir') and the stage had no test to verify.
 */
testIf(missingPythons(['3.6']))(
  "the pytest the build adds comes with the py it needs, over the project's older pin of it: the PR's fix verifies",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-tool-pins-'));
    const chain = await addFixChain(
      dir,
      'gen/tally-tool-pins',
      { 'setup.py': tallySetupPy(), 'requirements.txt': REQUIREMENTS },
      new Date('2013-04-10T00:00:00Z'),
      testFile,
    );
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await environments.forStage(chain, 0);
    const packages = env.manifest.resolution!.packages;
    const version = (name: string) => packages.find((p) => p.name === name)?.version ?? '0';
    expect(compareVersions(version('pytest'), '2.7.3')).toBeGreaterThanOrEqual(0);
    expect(compareVersions(version('py'), '1.4.29')).toBeGreaterThanOrEqual(0);
    // The project's other pins stay as it wrote them.
    expect(version('nose')).toBe('1.2.1');
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);
