import { type FetchContext, type LanguageRecipe, type RepoFiles, type Resolution } from '../../contract';
import { compareVersions, mustRun, toolVersion } from '../host-command';
import { runTool } from '../../host-tools';
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { unionDirectory } from '../../merge-deps';
import { seedFromStore } from './seed-cache';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type GoRecipe = LanguageRecipe<'go', 'go', 'go'>;

/** Debian bookworm's Go. */
export const DEBIAN_GO = '1.19';
/** The first Go released as a golang.org/toolchain module. */
const FIRST_TOOLCHAIN_MODULE = '1.21.0';
export const GOPATH = '/home/agent/go';
/**
 * The repository's module store (LanguageRecipe.dependencyStore), mounted read-only: the module cache
 * every build and sandbox reads. Its entries are module@version directories and downloads, each the
 * same bytes whichever fetch brought it (checked against go.sum as it came in), and go.mod with go.sum
 * pick the versions a build reads, never what else the cache holds.
 */
export const GO_STORE = '/opt/chainsmith/go-modules';
/** Go's build cache is keyed by its inputs' hashes (toolchain version included) and locks its own writes. */
export const GO_SHARED_CACHE = {
  dir: '/cache/go-build',
  env: { GOCACHE: '/cache/go-build' },
  seedFrom: '/home/agent/.cache/go-build',
};
const GOARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  ia32: '386',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
};

/** The go.mod's `go` and `toolchain` lines. */
export function goVersions(gomod: string): { go?: string; toolchain?: string } {
  return {
    go: /^go\s+(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(gomod)?.[1],
    toolchain: /^toolchain\s+go(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(gomod)?.[1],
  };
}

/**
 * The Go a module needs where Debian's 1.19 is too old: its `toolchain` line, else its `go` line
 * (`1.22` is the release `1.22.0`), at least the first Go published as a toolchain module.
 */
export function toolchainFor(gomod: string): { version?: string; note?: string } {
  const { go, toolchain } = goVersions(gomod);
  const wanted = toolchain ?? go;
  if (!wanted || compareVersions(wanted, '1.20') < 0) return {};
  const release = wanted.split('.').length === 2 ? `${wanted}.0` : wanted;
  if (compareVersions(release, FIRST_TOOLCHAIN_MODULE) < 0) {
    return {
      version: FIRST_TOOLCHAIN_MODULE,
      note: `go.mod asks for go ${wanted}; Debian has ${DEBIAN_GO} and toolchain modules start at go${FIRST_TOOLCHAIN_MODULE}, the nearest above`,
    };
  }
  return {
    version: release,
    note: `go.mod asks for go ${wanted}: go${release} from the golang.org/toolchain module, not Debian's ${DEBIAN_GO}`,
  };
}

/**
 * Go modules with a go.mod at the root. A module cache is filled on the host (`go mod download`
 * through the host's GOPROXY, checked against the committed go.sum), with the golang.org/toolchain
 * module of a newer Go where go.mod needs one, and joins the repository's module store (GO_STORE),
 * which builds and sandboxes read with GOPROXY=off. The image holds the toolchain and a build cache
 * warmed at its first stage, not the modules: every stage on one Go version shares one image, whatever
 * its go.mod requires. Debian's go 1.19 predates GOTOOLCHAIN, so a newer toolchain is put first on PATH.
 */
export async function detectGo(files: RepoFiles, merged?: RepoFiles): Promise<GoRecipe | undefined> {
  if (!files.rootFiles.has('go.mod')) return undefined;
  const gomod = (await files.read('go.mod')) ?? '';
  // The newer of the base's and the merge's Go: a PR that raises its go line is tested at the merge on the Go it asks for, and Go runs older code.
  const atMerge = toolchainFor((await merged?.read('go.mod')) ?? '');
  const atBase = toolchainFor(gomod);
  const { version, note } =
    atMerge.version && (!atBase.version || compareVersions(atMerge.version, atBase.version) > 0) ? atMerge : atBase;
  const toolchainModule = version
    ? `golang.org/toolchain@v0.0.1-go${version}.linux-${GOARCH[process.arch] ?? process.arch}`
    : undefined;
  return {
    language: 'go',
    origin: 'go-modules',
    toolchain: { image: 'go', version: version ?? DEBIAN_GO, ...(note ? { note } : {}) },
    manifests: ['go.mod', ...(files.rootFiles.has('go.sum') ? ['go.sum'] : [])],
    fetch: (ctx) => fetchModules(ctx, toolchainModule, files.rootFiles.has('go.sum')),
    // Minimal version selection from go.mod (and go.sum) decides every version: no date enters.
    pinned: true,
    withMerged: unionDirectory('mod'),
    dependencyStore: { dir: GO_STORE, from: 'mod' },
    setup: [
      'go version',
      unlessOnlyUnrequired('go build ./...'),
      // Every package and test import resolves from the copied cache alone.
      unlessOnlyUnrequired('go list -deps -test ./...'),
      // Leaves the test builds in the image's build cache; a base whose tests do not build still gets an image.
      // Without vet, as the runner's test runs (go-test.ts): its facts would fill the cache for nothing.
      `go test -count=1 -vet=off -run '^$' ./... || echo 'note: some test packages do not build at this commit'`,
    ],
    // cgo as Go's default: the toolchain image has a C compiler, so a package that imports "C" builds.
    env: {
      GOPATH,
      GOMODCACHE: GO_STORE,
      GOCACHE: '/home/agent/.cache/go-build',
      GOPROXY: 'off',
      GOSUMDB: 'off',
      GOTOOLCHAIN: 'local',
    },
    sharedCache: GO_SHARED_CACHE,
    path: toolchainModule ? [`${GO_STORE}/${toolchainModule}/bin`] : [],
    runner: 'go',
  };
}

/**
 * Fills depsDir/mod as a module cache: the modules go.mod and go.sum pin (so `asOf` changes nothing),
 * those every package and test imports, and the toolchain module, fetched as GOTOOLCHAIN does (the
 * go command then marks its binaries executable). What the repository's store holds already is linked
 * in first (seedFromStore): only new module versions are downloaded and extracted.
 */
export async function fetchModules(ctx: FetchContext, toolchainModule?: string, hasSum = true): Promise<Resolution> {
  const hostFlags = (await runTool('go', ['env', 'GOFLAGS'], { cwd: ctx.srcDir })).stdout.trim();
  const env = { GOMODCACHE: join(ctx.depsDir, 'mod'), GOFLAGS: [hostFlags, '-modcacherw'].filter(Boolean).join(' ') };
  const run = { cwd: ctx.srcDir, env, signal: ctx.signal };
  const notes = [hasSum ? 'versions as go.mod and go.sum pin them' : 'versions as go.mod pins them (no go.sum)'];
  if (ctx.store) {
    const seeded = await seedFromStore(ctx.store, ctx.srcDir, env.GOMODCACHE);
    if (seeded)
      notes.push(`${seeded} module versions go.sum names taken from the repository's store, not downloaded again`);
  }
  ctx.log('go: downloading the modules go.mod requires');
  await mustRun('go mod download', 'go', ['mod', 'download'], run);
  // Modules only tests import (or a pruned graph leaves out) come in as the packages load.
  const list = await runTool('go', ['list', '-e', '-deps', '-test', './...'], run);
  if (list.code !== 0)
    notes.push(`go list -deps -test ./... on the host: ${list.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const packages: Array<{ name: string; version: string }> = [];
  const modules = await runTool(
    'go',
    ['list', '-m', '-e', '-f', '{{if not .Main}}{{.Path}} {{.Version}}{{end}}', 'all'],
    run,
  );
  for (const line of modules.stdout.split('\n')) {
    const [name, version] = line.trim().split(' ');
    if (name && version) packages.push({ name, version });
  }
  if (toolchainModule) {
    const version = toolchainModule
      .replace(/^golang\.org\/toolchain@v0\.0\.1-go/, '')
      .replace(/\.[a-z]+-[a-z0-9]+$/, '');
    ctx.log(`go: fetching the go${version} toolchain module`);
    await mustRun(`fetching the go${version} toolchain`, 'go', ['version'], {
      ...run,
      env: { ...env, GOTOOLCHAIN: `go${version}` },
    });
    packages.push({ name: 'golang.org/toolchain', version: toolchainModule.split('@')[1] });
    notes.push(`toolchain go${version} from ${toolchainModule}`);
  }
  // A module that requires nothing leaves no cache at all; the build copies one, empty or not.
  await mkdir(env.GOMODCACHE, { recursive: true });
  // The go command leaves toolchain directories read-only, which would stop the cache from being deleted;
  // the store links these files, which the sandboxes' user reads whatever the host's umask.
  await runTool('chmod', ['-R', 'u+w,a+rX', env.GOMODCACHE], { cwd: ctx.depsDir });
  return {
    ecosystem: 'go-modules',
    tool: await toolVersion('go', ['version']),
    lock: hasSum ? 'committed' : 'none',
    packages,
    notes,
  };
}

/**
 * `command` (its output on stdout left out), failing the build unless every error it prints is an import that go.mod requires no module for. The
 * go.mod files of 2018-2020 often required nothing their packages imported: Go before 1.16 added the
 * requirement as it built (the era's toolchain updated go.mod), 1.16 on refuses ("no required module provides
 * package"), and the module is not the era's to choose. The packages that import one do not build, and a stage
 * whose tests need them says so in its run; the other packages still build and test.
 */
export function unlessOnlyUnrequired(command: string): string {
  const other = `grep -qv -e 'no required module provides package' -e '^[[:space:]]*go get ' -e '^[[:space:]]*to add it:'`;
  // Lines, so that a failed build's reason names the first (the command) and not the whole test.
  return [
    `if ! out=$(${command} 2>&1 >/dev/null); then`,
    '  echo "$out"',
    `  if echo "$out" | ${other}; then exit 1; fi`,
    "  echo 'note: go.mod requires no module for some imports (Go before 1.16 added them as it built): the packages that import them do not build'",
    'fi',
  ].join('\n');
}
