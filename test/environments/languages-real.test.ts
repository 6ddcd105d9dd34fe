import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { SANDBOX_LABEL } from '../../src/sandbox/docker-sandbox';
import { OWNER_LABEL, ownerLabel } from '../../src/sandbox/orphans';
import { testEnvironments } from '../support/environments';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from '../support/real-repos';

/**
 * Rust, Go and Java environments built from real repositories through the framework: dependencies
 * fetched on the host, the image built offline from them, and a real PR gold-validated in a sandbox
 * with network none. Slow (compilers on one core); each case skips where its bundle is absent.
 */
const docker = new Docker();
const realTest = (bundle: string) => {
  if (bundlePath(bundle)) return test;
  console.warn(`skipping: no ${bundle}.bundle in ${SHARED_REPOS}`);
  return test.skip;
};

async function validate(bundle: string, repoName: string, pr: number, branch: string, repoPath?: string) {
  const repo = repoPath ?? (await cloneBundle(bundle));
  const chain = await pullRequestChain(repo, repoName, pr, branch);
  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-real-')), 'artifacts'));
  const gold = await goldTestsFor({ docker, store, sandbox: { memoryMb: 2048, pidsLimit: 512 }, environments, timeoutSeconds: 900 }, chain, 0);
  expect(await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, 'chainsmith.gold', `${OWNER_LABEL}=${ownerLabel()[OWNER_LABEL]}`] } })).toHaveLength(0);
  return { env, gold };
}

realTest('serde-rs+json')(
  "serde_json #982: crates vendored for rustc 1.63 as of the manifests' date, the PR's new test fails before and passes after",
  async () => {
    const { env, gold } = await validate('serde-rs+json', 'serde-rs/json', 982, 'master');
    expect(env).toMatchObject({ language: 'rust', runner: 'cargo', recipe: { origin: 'rust-cargo' } });
    expect(env.manifest.toolchain.version).toMatch(/^rustc 1\.63\.0/);
    expect(env.manifest.resolution).toMatchObject({ ecosystem: 'crates', lock: 'resolved' });
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo' });
    expect(gold.failToPass).toEqual(['test::test_integer128_to_value']);
    expect(gold.passToPass.length).toBeGreaterThan(60);
  },
  40 * 60_000,
);

realTest('spf13+cobra')(
  'cobra #2356: the module cache copied into the image, go test -json per test; the PR test fails before and passes after',
  async () => {
    const { env, gold } = await validate('spf13+cobra', 'spf13/cobra', 2356, 'main');
    expect(env).toMatchObject({ language: 'go', runner: 'go', recipe: { origin: 'go-modules' } });
    expect(env.manifest.toolchain.version).toMatch(/^go version go1\.19/);
    expect(env.manifest.resolution).toMatchObject({ ecosystem: 'go-modules', lock: 'committed' });
    expect(gold).toMatchObject({ status: 'verified', runner: 'go' });
    expect(gold.failToPass).toEqual(['github.com/spf13/cobra/TestCompletionDoesNotMutateOsArgs']);
    expect(gold.passToPass.length).toBeGreaterThan(300);
  },
  30 * 60_000,
);

realTest('jhy+jsoup')(
  "jsoup #2570: Maven's local repository filled on the host, Surefire reports per test; the PR's tests fail before and pass after",
  async () => {
    const { env, gold } = await validate('jhy+jsoup', 'jhy/jsoup', 2570, 'master');
    expect(env).toMatchObject({ language: 'java', runner: 'maven', recipe: { origin: 'java-maven' } });
    expect(env.manifest.toolchain.version).toMatch(/17\./);
    expect(env.manifest.resolution).toMatchObject({ ecosystem: 'maven' });
    expect(gold).toMatchObject({ status: 'verified', runner: 'maven' });
    expect(gold.failToPass.sort()).toEqual(['org.jsoup.parser.XmlTreeBuilderTest#deepEndTagClosesElement', 'org.jsoup.parser.XmlTreeBuilderTest#xmlParserHasDefaultDepth']);
    expect(gold.passToPass.length).toBeGreaterThan(50);
  },
  30 * 60_000,
);

test('a module asking for go 1.22 builds with the golang.org/toolchain module, offline, and validates', async () => {
  // A repository of two commits: the base uses range-over-int (Go 1.22) and gets F wrong; PR #1 fixes it and adds its test.
  const repo = await mkdtemp(join(tmpdir(), 'chainsmith-go122-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd: repo, stdio: 'pipe' });
  const f = (body: string) => `package m\n\n// F sums 0..2.\nfunc F() (n int) {\n\tfor i := range 3 {\n\t\tn += ${body}\n\t}\n\treturn\n}\n`;
  git('init', '-q', '-b', 'main');
  await writeFile(join(repo, 'go.mod'), 'module example.com/m\n\ngo 1.22\n');
  await writeFile(join(repo, 'm.go'), f('i * i'));
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'fix');
  await writeFile(join(repo, 'm.go'), f('i'));
  await writeFile(join(repo, 'm_test.go'), 'package m\n\nimport "testing"\n\nfunc TestF(t *testing.T) {\n\tif F() != 3 {\n\t\tt.Fatal(F())\n\t}\n}\n');
  git('add', '.');
  git('commit', '-q', '-m', 'Fix F');
  git('update-ref', 'refs/pull/1/head', 'HEAD');
  git('checkout', '-q', 'main');
  const { env, gold } = await validate('', 'local/go122', 1, 'main', repo);
  // The framework's toolchain probe runs without the recipe's PATH and reports Debian's go; the tests see go 1.22
  // (range over an int does not compile before it, so a verified stage proves it).
  expect(env.manifest.toolchain).toMatchObject({ wanted: '1.22.0' });
  expect(env.manifest.resolution!.packages.map((p) => p.name)).toContain('golang.org/toolchain');
  expect(gold).toMatchObject({ status: 'verified', runner: 'go', failToPass: ['example.com/m/TestF'] });
}, 20 * 60_000);
