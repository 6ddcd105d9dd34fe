import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { SANDBOX_LABEL } from '../../src/sandbox/docker-sandbox';
import { testEnvironments } from '../../src/testing/environments';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from '../../src/testing/real-repos';

const docker = new Docker();
const bundle = bundlePath('pallets+jinja');
if (!bundle) console.warn(`skipping the Jinja environment tests: no pallets+jinja.bundle in ${SHARED_REPOS}`);
const real = bundle ? test : test.skip;

real('Jinja: dependencies resolved on the host as of the base, installed offline; a real PR validates with FAIL_TO_PASS tests', async () => {
  const repo = await cloneBundle('pallets+jinja');
  // #1465 (2022): filters taking attribute lists; its base has setup.py, setup.cfg and pinned requirements/*.txt.
  const chain = await pullRequestChain(repo, 'pallets/jinja', 1465, 'main');
  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  expect(env).toMatchObject({ language: 'python', runner: 'pytest', recipe: { origin: 'python-package' } });
  const { resolution, toolchain } = env.manifest;
  expect(toolchain.version).toMatch(/^Python 3\.11\./);
  expect(resolution).toMatchObject({ ecosystem: 'pypi', lock: 'resolved', tool: expect.stringMatching(/^uv \S+; pip \S+$/) });
  // As of when the manifests last changed (February 2022): MarkupSafe from then, pytest as pinned in requirements/tests.txt.
  expect(resolution!.asOf).toBe('2022-02-18T01:05:05.000Z');
  const versions = new Map(resolution!.packages.map((p) => [p.name.toLowerCase(), p.version]));
  expect(versions.get('markupsafe')).toMatch(/^2\.[01]\./);
  expect(versions.get('pytest')).toBe('7.0.1');

  const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-jinja-')), 'artifacts'));
  const gold = await goldTestsFor({ docker, store, sandbox: { memoryMb: 1024, pidsLimit: 256 }, environments }, chain, 0);
  expect(gold).toMatchObject({ status: 'verified', runner: 'pytest', signal: 'per-test' });
  expect(gold.failToPass.length).toBeGreaterThan(0);
  expect(gold.failToPass.every((id) => /^tests\/test_(async_)?filters\.py::/.test(id))).toBe(true);
  expect(gold.passToPass.length).toBeGreaterThan(100);
  expect(await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, 'chainsmith.gold'] } })).toHaveLength(0);

  // Another era with the same manifests (#1564, a day earlier) shares the fetched dependencies and the image.
  const earlier = await pullRequestChain(repo, 'pallets/jinja', 1564, 'main');
  const again = await testEnvironments(docker).forStage(earlier, 0);
  expect(again.image).toBe(env.image);
  expect(again.manifest.resolution!.key).toBe(resolution!.key);
});
