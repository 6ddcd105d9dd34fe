import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { StageError } from '../../../errors';
import { git } from '../../../git';
import { REPO_DIR } from '../../../container/sandbox';
import { stageReason } from '../../../stage-reason';
import { DEPS_MOUNT, type DetectContext, type RepoFiles } from '../../contract';
import { DEBIAN_GO, GO_SHARED_CACHE, GOPATH, type GoRecipe } from './detect';
import { fetchGopath } from './gopath-fetch';
import { GO_DIR_VAR } from './go-test';
import { goImportPath, goImports, type GoSource } from './import-path';
import { GODEP_WORKSPACE, LOCK_FILES } from './gopath-locks';

/** Read for the import path: enough for the import comments and self-imports of any repository, bounded. */
const MAX_READ = 300;
/** The dependency tools of the GOPATH era: their files at the root say the repository is Go's. */
const GO_TOOL_FILES = ['Godeps', 'glide.yaml', 'glide.lock', 'Gopkg.toml', 'Gopkg.lock'];
/** Other languages' build files at the root (a Makefile drives Go too, so it is not one). */
const OTHER_BUILDS = [
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'setup.py',
  'setup.cfg',
  'pyproject.toml',
  'package.json',
  'CMakeLists.txt',
  'configure.ac',
  'meson.build',
];
/** Code files of the other languages, counted against Go's where the root holds no Go file. */
const OTHER_CODE = /\.(py|rs|java|kt|js|ts|c|cc|cpp|h|hpp)$/;
/** Directories whose .go files are not the repository's packages. */
const NOT_PACKAGES = /(^|\/)(vendor|testdata|Godeps|_[^/]*|\.[^/]*)\//;
const IMPORT_PATH_SHAPE = /^[A-Za-z0-9][\w.~-]*(\/[\w.~-]+)*$/;

/** What each lock file at the commit holds, hashed: part of the fetch's key. */
async function lockTexts(files: RepoFiles): Promise<string[]> {
  const texts: string[] = [];
  for (const file of LOCK_FILES) {
    const text = await files.read(file);
    if (text !== undefined) texts.push(`${file} ${createHash('sha256').update(text).digest('hex').slice(0, 16)}`);
  }
  return texts;
}

/** The commit's files (the root's alone where there is no clone to list). */
async function listFiles(files: RepoFiles, repo?: { path: string; sha: string }): Promise<string[]> {
  if (!repo) return [...files.rootFiles];
  return (await git(repo.path, ['ls-tree', '-r', '-z', '--name-only', repo.sha])).split('\0').filter(Boolean);
}

/**
 * What the stage's PR imports anew outside the standard library and the repository (a first element
 * with a dot): its changed Go files' imports at the merge that the same files did not import at the base.
 */
async function prImports(files: RepoFiles, ctx: DetectContext, importPath: string): Promise<string[]> {
  if (!ctx.repo?.merge || !ctx.merged) return [];
  const changed = (await git(ctx.repo.path, ['diff', '--name-only', '-z', ctx.repo.sha, ctx.repo.merge, '--', '*.go']))
    .split('\0')
    .filter((f) => f && !NOT_PACKAGES.test(f));
  const added = new Set<string>();
  for (const path of changed) {
    const before = new Set(goImports((await files.read(path)) ?? ''));
    for (const imported of goImports((await ctx.merged.read(path)) ?? ''))
      if (!before.has(imported) && imported.split('/')[0].includes('.') && !`${imported}/`.startsWith(`${importPath}/`))
        added.add(imported);
  }
  return [...added].sort();
}

/**
 * A Go repository of the GOPATH era: no go.mod, and Go files at the root, a dependency tool of the era
 * there, or more Go files than any other language's code (a stray .go file does not make a Python
 * project Go's). It builds in GOPATH mode under its import path (import-path.ts), the checkout linked
 * into GOPATH by the image's setup and the tests run from there (GO_DIR_VAR), so packages keep their
 * real import paths. The imports' modules are fetched on the host into a GOPATH layout (gopath-fetch.ts)
 * that setup copies in, with what the stage's PR imports anew; no go.mod is written into the checkout,
 * which is the agent's tree.
 */
export async function detectGopath(files: RepoFiles, ctx: DetectContext): Promise<GoRecipe | undefined> {
  const toolAtRoot = GO_TOOL_FILES.some((f) => files.rootFiles.has(f));
  const goFileAtRoot = [...files.rootFiles].some((f) => f.endsWith('.go'));
  const otherBuild = OTHER_BUILDS.some((f) => files.rootFiles.has(f));
  // Another build system at the root and no Go there: not listed (every stage of a Python or Java repository reaches here).
  if (otherBuild && !toolAtRoot && !goFileAtRoot) return undefined;
  const all = await listFiles(files, ctx.repo);
  // A go.mod below the root is a module's: not the GOPATH era, whose self-imports would be fetched as someone else's.
  if (all.some((f) => f.endsWith('/go.mod') && !NOT_PACKAGES.test(f))) return undefined;
  const goFiles = all.filter((f) => f.endsWith('.go') && !NOT_PACKAGES.test(f));
  if (!goFiles.length) return undefined;
  // Beside another build system, a Go file at the root is a tool's (a generator), unless the era's Go dependency tool is there too.
  const claimed = toolAtRoot || (goFileAtRoot && !otherBuild);
  if (!claimed && goFiles.length <= all.filter((f) => OTHER_CODE.test(f)).length) return undefined;
  const read = [...goFiles].sort((a, b) => a.split('/').length - b.split('/').length).slice(0, MAX_READ);
  const sources: GoSource[] = [];
  for (const path of read) {
    const text = await files.read(path);
    if (text !== undefined) sources.push({ path, text });
  }
  // What the repository vendors is someone else's: its imports cast no vote for the repository's own path.
  const vendored = [
    ...new Set(
      all.flatMap((f) => {
        const m = /^(?:.*\/)?(?:vendor|Godeps\/_workspace\/src)\/(.+)\/[^/]+\.go$/.exec(f);
        return m ? [m[1]] : [];
      }),
    ),
  ];
  const found = goImportPath(sources, ctx.repoName, vendored);
  if (!found || !IMPORT_PATH_SHAPE.test(found.path)) {
    const why = found
      ? `a Go repository without go.mod whose import path (${found.path}, from ${found.how}) cannot be used`
      : 'a Go repository without go.mod, and neither an import comment, its imports of its own packages nor its name tells its import path';
    throw new StageError(why, { reason: stageReason('unsupported', why) });
  }
  const dir = `${GOPATH}/src/${found.path}`;
  const added = await prImports(files, ctx, found.path);
  const workspace = all.some((f) => f.startsWith(`${GODEP_WORKSPACE}/src/`));
  return {
    language: 'go',
    origin: 'go-gopath',
    toolchain: { image: 'go', version: DEBIAN_GO, note: `GOPATH mode as ${found.path} (${found.how})` },
    // What the fetch resolves is every file's imports, not a manifest's: it is keyed on the commit's date,
    // the import path, godep's workspace and what the lock files pin.
    manifests: [],
    fetchRevision: 2,
    fetchKey: [found.path, workspace ? GODEP_WORKSPACE : '', ...(await lockTexts(files))],
    fetch: (fetchCtx) => fetchGopath(fetchCtx, found.path, added),
    // Part of the fetch's key: two PRs from one base that import different packages fetch apart.
    ...(added.length ? { prAdds: added } : {}),
    setup: [
      'go version',
      `mkdir -p ${posix.dirname(dir)}`,
      `if [ -d ${DEPS_MOUNT}/src ]; then cp -R ${DEPS_MOUNT}/src/. ${GOPATH}/src/; fi`,
      `ln -sfn ${REPO_DIR} ${dir}`,
      // Leaves the test builds in the image's build cache; a base whose tests do not build still gets an image.
      `cd ${dir} && go test -count=1 -vet=off -run '^$' ./... || echo 'note: some test packages do not build at this commit'`,
    ],
    env: {
      GO111MODULE: 'off',
      GOPATH: workspace ? `${GOPATH}:${REPO_DIR}/${GODEP_WORKSPACE}` : GOPATH,
      GOCACHE: '/home/agent/.cache/go-build',
      GOFLAGS: '',
      GOPROXY: 'off',
      GOTOOLCHAIN: 'local',
      [GO_DIR_VAR]: dir,
    },
    sharedCache: GO_SHARED_CACHE,
    path: [],
    workDir: dir,
    runner: 'go',
  };
}
