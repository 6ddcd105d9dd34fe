import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepoFiles } from '../../../../src/environments/contract';
import { detectGo, GO_STORE, toolchainFor } from '../../../../src/environments/languages/go/detect';
import { gitRepoFiles } from '../../../../src/environments/repo-files';
import { missingRealRepo, missingTool, testIf } from '../../../support/preconditions';
import { cloneBundle } from '../../../support/real-repos';
import { checkoutAt, commitDate, fetchContext } from '../../real-repos';

const files = (entries: Record<string, string>): RepoFiles => ({
  rootFiles: new Set(Object.keys(entries)),
  read: async (p) => entries[p],
});
const offline = (cache: string) => ({
  ...process.env,
  GOMODCACHE: cache,
  GOPROXY: 'off',
  GOFLAGS: '-mod=readonly',
  GOTOOLCHAIN: 'local',
});

describe('Go recipe', () => {
  it("is detected from go.mod; a module for Go ≤ 1.19 builds with Debian's go", async () => {
    expect(await detectGo(files({ 'main.go': '' }))).toBeUndefined();
    const recipe = await detectGo(files({ 'go.mod': 'module example.com/m\n\ngo 1.15\n', 'go.sum': '' }));
    expect(recipe).toMatchObject({
      language: 'go',
      origin: 'go-modules',
      runner: 'go',
      manifests: ['go.mod', 'go.sum'],
      toolchain: { image: 'go', version: '1.19' },
      path: [],
    });
    expect(recipe?.env).toMatchObject({ GOPROXY: 'off', GOMODCACHE: GO_STORE, GOTOOLCHAIN: 'local' });
    expect(recipe?.dependencyStore).toEqual({ dir: GO_STORE, from: 'mod' });
  });

  it('takes a newer Go from the toolchain module: the toolchain line, else the go line, at least go1.21.0', async () => {
    expect(toolchainFor('go 1.19\n')).toEqual({});
    expect(toolchainFor('go 1.22\n').version).toBe('1.22.0');
    expect(toolchainFor('go 1.21.3\ntoolchain go1.22.5\n').version).toBe('1.22.5');
    expect(toolchainFor('go 1.20\n')).toMatchObject({ version: '1.21.0', note: expect.stringContaining('nearest') });
    const recipe = await detectGo(files({ 'go.mod': 'module m\n\ngo 1.22.1\n' }));
    expect(recipe?.toolchain).toMatchObject({
      image: 'go',
      version: '1.22.1',
      note: expect.stringContaining('golang.org/toolchain'),
    });
    expect(recipe?.path[0]).toMatch(
      /^\/opt\/chainsmith\/go-modules\/golang\.org\/toolchain@v0\.0\.1-go1\.22\.1\.linux-\w+\/bin$/,
    );
  });

  // cobra PR #2356 (completions must not mutate os.Args).
  const base = 'f2878bab8c96afd6e36968af96343b35dbb82a82';
  testIf(missingRealRepo('spf13+cobra', 'go'))(
    'fetches cobra at PR #2356 into a module cache that builds and lists every test import offline',
    async () => {
      const repo = await cloneBundle('spf13+cobra');
      const src = await checkoutAt(repo, base);
      const ctx = fetchContext(src, commitDate(repo, base));
      try {
        const resolution = await (await detectGo(await gitRepoFiles(repo, base)))!.fetch!(ctx);
        expect(resolution).toMatchObject({
          ecosystem: 'go-modules',
          lock: 'committed',
          tool: expect.stringMatching(/^go version go/),
        });
        expect(resolution.packages).toContainEqual({ name: 'github.com/spf13/pflag', version: 'v1.0.9' });
        const env = offline(join(ctx.depsDir, 'mod'));
        execFileSync('go', ['build', './...'], { cwd: src, env, stdio: 'pipe' });
        execFileSync('go', ['list', '-deps', '-test', './...'], { cwd: src, env, stdio: 'pipe' });
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  testIf(missingTool('go'))(
    'fetches the toolchain a go 1.22 module asks for, runnable offline from the cache',
    async () => {
      const src = mkdtempSync(join(tmpdir(), 'chainsmith-gomod-'));
      writeFileSync(join(src, 'go.mod'), 'module example.com/m\n\ngo 1.22\n');
      writeFileSync(join(src, 'm.go'), 'package m\n\nfunc F() int { return 1 }\n');
      const recipe = await detectGo(files({ 'go.mod': 'module example.com/m\n\ngo 1.22\n' }));
      const ctx = fetchContext(src, new Date());
      try {
        const resolution = await recipe!.fetch!(ctx);
        expect(resolution.packages.map((p) => p.name)).toContain('golang.org/toolchain');
        const bin = recipe!.path[0].replace(GO_STORE, join(ctx.depsDir, 'mod'));
        expect(existsSync(join(bin, 'go'))).toBe(true);
        const version = execFileSync(join(bin, 'go'), ['version'], {
          cwd: src,
          env: offline(join(ctx.depsDir, 'mod')),
          encoding: 'utf8',
        });
        expect(version).toMatch(/^go version go1\.22\.0 /);
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );
});
