import Docker from 'dockerode';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { checkoutLines } from '../../src/container/checkout';
import { DockerContainer } from '../../src/container/docker-container';
import { REPO_DIR } from '../../src/container/sandbox';
import { fetchSubmodules, resolveUrl } from '../../src/container/submodules';
import { git } from '../../src/git';
import { baseImageTag } from '../../src/environments/images';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';

const docker = new Docker();
const FILE_PROTOCOL = ['-c', 'protocol.file.allow=always'];

/** `upstream` with `dep` (which has `inner` as its own submodule) at vendor/check; the clone a user gives, not recursive. */
async function superproject(files: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-submodules-'));
  await ChainRepo.create(join(dir, 'inner'), { 'inner.h': '#define CHECK_FAILED(c) (!(c))\n' });
  const dep = await ChainRepo.create(join(dir, 'dep'), {
    'check.h':
      '#include "inner/inner.h"\nstatic int checks;\n' +
      '#define CHECK(name, c) printf("%sok %d - %s\\n", CHECK_FAILED(c) ? "not " : "", ++checks, name)\n',
  });
  await git(dep.path, [...FILE_PROTOCOL, 'submodule', '--quiet', 'add', '../inner', 'inner']);
  await dep.commit('Take inner as a submodule', {});
  const upstream = await ChainRepo.create(join(dir, 'upstream'), files);
  await git(upstream.path, [...FILE_PROTOCOL, 'submodule', '--quiet', 'add', '../dep', 'vendor/check']);
  await upstream.commit('Take the check library as a submodule', {});
  return { dir, dep, upstream };
}

async function cloneOf(upstream: ChainRepo, into: string, ...flags: string[]) {
  await git(upstream.path, [...FILE_PROTOCOL, 'clone', '-q', ...flags, upstream.path, into]);
  return into;
}

describe('fetching submodules on the host', () => {
  test('a clone without them gets every submodule commit, nested ones too, from the URLs .gitmodules gives', async () => {
    const { dir, upstream } = await superproject({ 'a.c': 'int a;\n' });
    const clone = await cloneOf(upstream, join(dir, 'clone'));
    const head = await upstream.head();
    const dep = (await git(clone, ['rev-parse', `${head}:vendor/check`])).trim();
    const inner = (await git(upstream.path, ['-C', 'vendor/check', 'rev-parse', 'HEAD:inner'])).trim();
    await expect(git(clone, ['cat-file', '-e', `${dep}^{commit}`])).rejects.toThrow();

    expect(await fetchSubmodules(clone, head)).toEqual([]);
    for (const sha of [dep, inner]) {
      await git(clone, ['cat-file', '-e', `${sha}^{commit}`]);
      expect((await git(clone, ['rev-parse', `refs/chainsmith/submodules/${sha}`])).trim()).toBe(sha);
    }
  });

  test("a recursive clone's own .git/modules serves them, nested ones too, when their URLs no longer answer", async () => {
    const { dir, upstream } = await superproject({ 'a.c': 'int a;\n' });
    const clone = await cloneOf(upstream, join(dir, 'clone'), '--recurse-submodules');
    for (const gone of ['dep', 'inner']) await rm(join(dir, gone), { recursive: true });
    const head = await upstream.head();
    expect(await fetchSubmodules(clone, head)).toEqual([]);
    await git(clone, [
      'cat-file',
      '-e',
      `refs/chainsmith/submodules/${(await git(clone, ['rev-parse', `${head}:vendor/check`])).trim()}`,
    ]);
  });

  test('one that cannot be had is named with its path, URL and why, and no credentials', async () => {
    const { dir, upstream } = await superproject({ 'a.c': 'int a;\n' });
    await git(upstream.path, [
      'config',
      '-f',
      '.gitmodules',
      'submodule.vendor/check.url',
      'https://ada:s3cret@127.0.0.1:9/dep.git',
    ]);
    const head = await upstream.commit('Point the submodule at a server', {});
    const clone = await cloneOf(upstream, join(dir, 'clone'));
    const missing = await fetchSubmodules(clone, head);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/^vendor\/check at [0-9a-f]{12} \(https:\/\/127\.0\.0\.1:9\/dep\.git\): .+/);
    expect(missing[0]).not.toContain('s3cret');
  });

  test('relative URLs are taken from the superproject URL as git takes them', () => {
    expect(resolveUrl('https://github.com/acme/app.git', '../dep.git')).toBe('https://github.com/acme/dep.git');
    expect(resolveUrl('https://github.com/acme/app', './dep')).toBe('https://github.com/acme/app/dep');
    expect(resolveUrl('git@github.com:acme/app.git', '../dep.git')).toBe('git@github.com:acme/dep.git');
    expect(resolveUrl('/srv/git/app/', '../lib/dep')).toBe('/srv/git/lib/dep');
    expect(resolveUrl('/srv/git/app', 'https://example.test/x.git')).toBe('https://example.test/x.git');
  });
});

test("a sandbox writes the submodules' trees, unseen by git, and a checkout in place follows a moved submodule", async () => {
  const { dir, dep, upstream } = await superproject({ 'a.c': 'int a;\n' });
  const first = await upstream.head();
  await dep.commit('Check harder', { 'check.h': '#define CHECK_HARDER 1\n' });
  await git(join(upstream.path, 'vendor/check'), ['pull', '-q', 'origin', 'main']);
  const moved = await upstream.commit('Take the newer check library', {});
  const clone = await cloneOf(upstream, join(dir, 'clone'));
  for (const sha of [first, moved]) expect(await fetchSubmodules(clone, sha)).toEqual([]);
  const sandbox = await DockerContainer.create(docker, {
    image: baseImageTag(),
    mirrorPath: clone,
    labels: { 'chainsmith.test': 'submodules' },
    memoryMb: 256,
    pidsLimit: 64,
  });
  try {
    const at = async (sha: string) => {
      const r = await sandbox.exec(
        [
          ...checkoutLines(sha),
          'cat vendor/check/check.h vendor/check/inner/inner.h',
          'echo "status:[$(git status --porcelain)]"',
        ].join('\n'),
        { timeoutSeconds: 60, maxOutputChars: 20_000, cwd: '/work' },
      );
      expect(r).toMatchObject({ exitCode: 0 });
      expect(r.output).toContain('status:[]');
      expect(r.output).not.toContain('submodule');
      return r.output;
    };
    expect(await at(first)).toContain('#define CHECK(name, c)');
    const after = await at(moved);
    expect(after).toContain('#define CHECK_HARDER 1');
    expect(after).toContain('#define CHECK_FAILED(c)');
    expect(after).not.toContain('#define CHECK(name, c)');
    expect(
      (await sandbox.exec(`test -d ${REPO_DIR}/.git && echo reused`, { timeoutSeconds: 10, maxOutputChars: 100 }))
        .output,
    ).toContain('reused');
  } finally {
    await sandbox.destroy();
  }
});

test("a C project whose tests include a submodule's header builds and verifies in a sandbox from a clone without it", async () => {
  const clamp = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;
  const tests = (cases: string[]) =>
    `#include <stdio.h>\n#include "vendor/check/check.h"\nint clamp(int, int, int);\nint main(void) {\n${cases.map((c) => `  CHECK(${c});\n`).join('')}  return 0;\n}\n`;
  const makefile = 'check: test_clamp\n\t./test_clamp\ntest_clamp: clamp.c tests/test_clamp.c\n\t$(CC) -I. -o $@ $^\n';
  const low = '"clamps below", clamp(-5, 0, 10) == 0';
  const high = '"clamps above", clamp(50, 0, 10) == 10';
  const { dir, upstream } = await superproject({
    Makefile: makefile,
    'clamp.c': clamp('return x < lo ? lo : x;'),
    'tests/test_clamp.c': tests([low]),
  });
  const pr = await upstream.pr(1, 'Clamp from above too', {
    'clamp.c': clamp('return x < lo ? lo : x > hi ? hi : x;'),
    'tests/test_clamp.c': tests([low, high]),
  });
  const clone = await cloneOf(upstream, join(dir, 'clone'));
  const chain = { ...upstream.chain('gen/clamp-submodule', [pr]), repo: { name: 'gen/clamp-submodule', path: clone } };
  const environments = testEnvironments(docker);
  const deps = {
    docker,
    store: new ArtifactStore(join(dir, 'artifacts')),
    sandbox: { memoryMb: 512, pidsLimit: 256 },
    environments,
  };

  expect(await environments.forStage(chain, 0)).toMatchObject({ language: 'c', runner: 'make' });
  expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
    status: 'verified',
    failToPass: ['clamps above'],
    passToPass: ['clamps below'],
  });
});

test('a PR whose tests read a submodule the host could not fetch is dependencies-unresolvable, naming the submodule', async () => {
  const counter = (body: string) => `def checks(text):\n    return ${body}\n`;
  const tests = (names: string[]) =>
    'from acme.count import checks\n\n' +
    names
      .map(
        (n) => `def test_${n}():\n    with open("vendor/check/check.h") as f:\n        assert checks(f.read()) >= 1\n`,
      )
      .join('\n');
  const { dir, upstream } = await superproject({
    'setup.py': 'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"])\n',
    'acme/__init__.py': '',
    'acme/count.py': counter('0'),
    'tests/test_count.py': tests(['reads']),
  });
  await git(upstream.path, [
    'config',
    '-f',
    '.gitmodules',
    'submodule.vendor/check.url',
    'https://127.0.0.1:9/dep.git',
  ]);
  await upstream.commit('Point the submodule at a server that does not answer', {});
  const pr = await upstream.pr(1, 'Count the checks', {
    'acme/count.py': counter('text.count("CHECK(")'),
    'tests/test_count.py': tests(['reads', 'counts']),
  });
  const clone = await cloneOf(upstream, join(dir, 'clone'));
  const chain = { ...upstream.chain('gen/count-submodule', [pr]), repo: { name: 'gen/count-submodule', path: clone } };
  const deps = {
    docker,
    store: new ArtifactStore(join(dir, 'artifacts')),
    sandbox: { memoryMb: 512, pidsLimit: 256 },
    environments: testEnvironments(docker),
  };

  const gold = await goldTestsFor(deps, chain, 0);
  expect(gold.failToPass).toEqual([]);
  expect(gold.reason).toMatchObject({ kind: 'dependencies-unresolvable' });
  expect(gold.reason?.summary).toContain('vendor/check, a submodule whose commit the host could not fetch');
}, 600_000);
