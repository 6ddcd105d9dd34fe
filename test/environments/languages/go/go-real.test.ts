import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realTest, validateReal as validate } from '../../../support/real-validation';

/** Go from a real repository (cobra) and a module that needs a newer Go than Debian's: the module cache copied in, go test -json. */
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

test(
  'a module asking for go 1.22 builds with the golang.org/toolchain module, offline, and validates',
  async () => {
    // A repository of two commits: the base uses range-over-int (Go 1.22) and gets F wrong; PR #1 fixes it and adds its test.
    // Fixed authors and dates make the same commits every run, so a warm machine finds the environment
    // (a 1 GB image whose build compiles Go's standard library) instead of building another.
    const repo = await mkdtemp(join(tmpdir(), 'chainsmith-go122-'));
    const fixed = {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@localhost',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@localhost',
      GIT_AUTHOR_DATE: '2024-03-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2024-03-01T00:00:00Z',
    };
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, ...fixed } });
    const f = (body: string) =>
      `package m\n\n// F sums 0..2.\nfunc F() (n int) {\n\tfor i := range 3 {\n\t\tn += ${body}\n\t}\n\treturn\n}\n`;
    git('init', '-q', '-b', 'main');
    await writeFile(join(repo, 'go.mod'), 'module example.com/m\n\ngo 1.22\n');
    await writeFile(join(repo, 'm.go'), f('i * i'));
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    git('checkout', '-q', '-b', 'fix');
    await writeFile(join(repo, 'm.go'), f('i'));
    await writeFile(
      join(repo, 'm_test.go'),
      'package m\n\nimport "testing"\n\nfunc TestF(t *testing.T) {\n\tif F() != 3 {\n\t\tt.Fatal(F())\n\t}\n}\n',
    );
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
  },
  20 * 60_000,
);
