import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../../src/artifacts/store';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { testEnvironments } from '../../../support/environments';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from '../../../support/real-repos';
import { ownSandboxes } from '../../../support/containers';

const docker = new Docker();
const bundle = bundlePath('DaveGamble+cJSON');
if (!bundle) console.warn(`skipping the cJSON environment tests: no DaveGamble+cJSON.bundle in ${SHARED_REPOS}`);
const real = bundle ? test : test.skip;

real(
  'cJSON: CMake configures and builds in the C toolchain image; a real PR validates per Unity case through CTest',
  async () => {
    const repo = await cloneBundle('DaveGamble+cJSON');
    // #885 (2024): cJSON_SetValuestring must refuse overlapping strings; a new Unity case in tests/misc_tests.c.
    const chain = await pullRequestChain(repo, 'DaveGamble/cJSON', 885, 'master');
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);
    expect(env).toMatchObject({ language: 'c', runner: 'ctest', recipe: { origin: 'c-cmake' } });
    expect(env.manifest.toolchain).toMatchObject({
      name: 'c',
      image: expect.stringMatching(/^chainsmith-toolchain:c-/),
      version: expect.stringMatching(/gcc .*12\.\d.* \/ cmake version 3\.25/),
    });
    expect(env.manifest.resolution).toBeUndefined();

    const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-cjson-')), 'artifacts'));
    const gold = await goldTestsFor(
      { docker, store, sandbox: { memoryMb: 1024, pidsLimit: 256 }, environments },
      chain,
      0,
    );
    expect(gold).toMatchObject({ status: 'verified', runner: 'ctest', signal: 'per-test' });
    // The new case fails before the fix (and so does its test executable); the file's other cases keep passing.
    expect(gold.failToPass).toEqual([
      'misc_tests',
      'misc_tests::cjson_set_valuestring_should_return_null_if_strings_overlap',
    ]);
    expect(gold.passToPass).toEqual(
      expect.arrayContaining(['misc_tests::cjson_array_foreach_should_loop_over_arrays']),
    );
    expect(gold.passToPass.length).toBeGreaterThan(20);
    // Its one test file is tests/misc_tests.c: only that program is built and run, not parse_number's.
    expect(gold.passToPass.filter((id) => !id.startsWith('misc_tests::'))).toEqual([]);
    expect(gold.brokenOnGold).toEqual([]);
    // This process's gold sandboxes (other processes may share the engine).
    expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  },
);
