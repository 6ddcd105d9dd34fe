import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../../src/artifacts/store';
import { hostPythons } from '../../../../src/environments/languages/python/host-pythons';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { testEnvironments } from '../../../support/environments';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from '../../../support/real-repos';
import { ownSandboxes } from '../../../support/containers';

const docker = new Docker();
const bundle = bundlePath('pallets+jinja');
if (!bundle) console.warn(`skipping the Jinja environment tests: no pallets+jinja.bundle in ${SHARED_REPOS}`);
const real = bundle ? test : test.skip;

real(
  'Jinja: dependencies resolved on the host as of the base, installed offline; a real PR validates with FAIL_TO_PASS tests',
  async () => {
    const repo = await cloneBundle('pallets+jinja');
    // #1465 (2022): filters taking attribute lists; its base has setup.py, setup.cfg and pinned requirements/*.txt.
    const chain = await pullRequestChain(repo, 'pallets/jinja', 1465, 'main');
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);
    expect(env).toMatchObject({ language: 'python', runner: 'pytest', recipe: { origin: 'python-package' } });
    const { resolution, toolchain } = env.manifest;
    // Its base (March 2022) tests on 3.7 to 3.11-dev and predates 3.11's first beta: of 3.7–3.10 the
    // roundest, 3.8, where the host has it (else 3.10); the image's 3.11 where the host has none of them.
    const hosts = new Set((await hostPythons()).map((p) => p.version));
    const era = hosts.has('3.8') ? '3.8' : hosts.has('3.10') ? '3.10' : '3.11';
    expect(toolchain).toMatchObject({
      wanted: era,
      version: expect.stringMatching(new RegExp(`^Python ${era.replace('.', '\\.')}\\.`)),
    });
    expect(resolution).toMatchObject({
      ecosystem: 'pypi',
      lock: 'resolved',
      tool: expect.stringMatching(/^uv \S+; pip \S+$/),
    });
    // As of when the manifests last changed (February 2022): MarkupSafe from then, pytest as pinned in requirements/tests.txt.
    expect(resolution!.asOf).toBe('2022-02-18T01:05:05.000Z');
    const versions = new Map(resolution!.packages.map((p) => [p.name.toLowerCase(), p.version]));
    expect(versions.get('markupsafe')).toMatch(/^2\.[01]\./);
    expect(versions.get('pytest')).toBe('7.0.1');

    const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-jinja-')), 'artifacts'));
    const gold = await goldTestsFor(
      { docker, store, sandbox: { memoryMb: 1024, pidsLimit: 256 }, environments },
      chain,
      0,
    );
    expect(gold).toMatchObject({
      status: 'verified',
      runner: 'pytest',
      signal: 'per-test',
      environment: {
        language: 'python',
        toolchain: expect.stringMatching(new RegExp(`^Python ${era.replace('.', '\\.')}`)),
        dependencies: expect.stringMatching(/^uv .*, resolved as of 2022-02-18, 13 packages$/),
      },
    });
    expect(gold.failToPass.length).toBeGreaterThan(0);
    expect(gold.failToPass.every((id) => /^tests\/test_(async_)?filters\.py::/.test(id))).toBe(true);
    expect(gold.passToPass.length).toBeGreaterThan(100);
    // This process's gold sandboxes (other processes may share the engine).
    expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);

    // Another era with the same manifests (#1564, a day earlier) shares the fetched dependencies and the image.
    const earlier = await pullRequestChain(repo, 'pallets/jinja', 1564, 'main');
    const again = await testEnvironments(docker).forStage(earlier, 0);
    expect(again.image).toBe(env.image);
    expect(again.manifest.resolution!.key).toBe(resolution!.key);
  },
);

real(
  'Jinja today: a committed uv.lock is exported as it is, with the tests dependency group and the flit_core build backend',
  async () => {
    const repo = await cloneBundle('pallets+jinja');
    // #2099 (2025): after the move to uv; pyproject.toml has [dependency-groups] and uv.lock is committed.
    const chain = await pullRequestChain(repo, 'pallets/jinja', 2099, 'main');
    const env = await testEnvironments(docker).forStage(chain, 0);
    const resolution = env.manifest.resolution!;
    expect(resolution).toMatchObject({ ecosystem: 'pypi', lock: 'committed' });
    const names = resolution.packages.map((p) => p.name.toLowerCase());
    expect(names).toEqual(expect.arrayContaining(['markupsafe', 'pytest', 'trio', 'flit-core']));
    expect(names).not.toContain('sphinx');
  },
);

real(
  "Jinja in 2020 on a host with only the image's Python 3.11: pytest 5 (py 1.8) cannot run there, so the test tooling is lifted while the project stays as of its date, and the PR validates",
  async () => {
    const repo = await cloneBundle('pallets+jinja');
    // #1240 (2020): its requirements/tests.txt pins pytest 5.4.3 and py 1.8.1, whose apipkg fails on 3.11 at import.
    const chain = await pullRequestChain(repo, 'pallets/jinja', 1240, 'main');
    // No pyenv Pythons (on a host with them, the era's 3.9 runs pytest 5 as pinned: the environments bench).
    const pyenvRoot = process.env.PYENV_ROOT;
    process.env.PYENV_ROOT = await mkdtemp(join(tmpdir(), 'chainsmith-no-pyenv-'));
    const environments = testEnvironments(docker);
    const env = await environments
      .forStage(chain, 0)
      .finally(() => (pyenvRoot === undefined ? delete process.env.PYENV_ROOT : (process.env.PYENV_ROOT = pyenvRoot)));
    expect(env.manifest.toolchain).toMatchObject({ wanted: '3.11', version: expect.stringMatching(/^Python 3\.11\./) });
    const resolution = env.manifest.resolution!;
    expect(resolution.asOf).toBe('2020-06-03T08:52:31.000Z');
    const versions = new Map(resolution.packages.map((p) => [p.name.toLowerCase(), p.version]));
    expect(versions.get('pytest')).toBe('7.0.1');
    expect(versions.get('py')).toBe('1.11.0');
    // The project's own dependency as of June 2020.
    expect(versions.get('markupsafe')).toBe('1.1.1');
    expect(resolution.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^test tooling lifted to run on Python 3\.11: py 1\.8\.1 → 1\.11\.0, pytest 5\.4\.3 → 7\.0\.1 .*stay as of 2020-06-03$/,
        ),
      ]),
    );

    const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-jinja-')), 'artifacts'));
    const gold = await goldTestsFor(
      { docker, store, sandbox: { memoryMb: 1024, pidsLimit: 256 }, environments },
      chain,
      0,
    );
    expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
    expect(gold.failToPass.length).toBeGreaterThan(0);
  },
);

real(
  'Jinja #1960: trio, which the PR adds to its test requirements and its base declares nowhere, is installed',
  async () => {
    const repo = await cloneBundle('pallets+jinja');
    // #1960 (2024): runs the async tests under trio too; trio enters requirements/tests.txt with the PR.
    const chain = await pullRequestChain(repo, 'pallets/jinja', 1960, 'main');
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);
    expect(env.recipe.prAdds).toContain('trio');
    const resolution = env.manifest.resolution!;
    expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('trio');
    expect(resolution.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^test requirements the PR adds, which the base does not declare: .*\btrio\b/),
      ]),
    );

    // Its base alone (the PR before it, #1952, shares that base's manifests) gets no trio.
    const before = await pullRequestChain(repo, 'pallets/jinja', 1952, 'main');
    expect((await testEnvironments(docker).forStage(before, 0)).recipe.prAdds).toBeUndefined();
  },
  20 * 60_000,
);

// Its base is three days after 3.13.0b1, but its CI tests up to 3.12, and the merge's pinned
// requirements/tests.txt holds trio 0.22.2 ("for Python3.7 support"), which does not import on 3.13
// (TypeError: ('parser', <class 'module'>)): the Python is one the project tests on, the roundest of them.
real(
  "Jinja #1960 validates under trio, on a Python its CI tests at the base (3.8, not the era's 3.13)",
  async () => {
    const repo = await cloneBundle('pallets+jinja');
    const chain = await pullRequestChain(repo, 'pallets/jinja', 1960, 'main');
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);
    if ((await hostPythons()).some((p) => p.version === '3.8'))
      expect(env.manifest.toolchain).toMatchObject({
        wanted: '3.8',
        note: expect.stringMatching(/tests on Python .*3\.12.*Python 3\.8 is the roundest/),
      });
    const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-jinja-')), 'artifacts'));
    const gold = await goldTestsFor(
      { docker, store, sandbox: { memoryMb: 1024, pidsLimit: 256 }, environments },
      chain,
      0,
    );
    expect(gold).toMatchObject({ status: 'verified', brokenOnGold: [] });
    expect(gold.failToPass.some((id) => /trio/.test(id))).toBe(true);
  },
  20 * 60_000,
);
