import { posix } from 'node:path';

/** A Go source file of the repository: its root-relative path and text. */
export interface GoSource {
  path: string;
  text: string;
}

/** The import path a GOPATH-era repository is built under, and how it was found (for the recipe's note). */
export interface ImportPath {
  path: string;
  how: string;
}

/** `package cobra // import "github.com/spf13/cobra"`: the import comment the go command checks in GOPATH mode. */
const IMPORT_COMMENT = /^package\s+\w+\s*(?:\/\/|\/\*)\s*import\s+"([^"]+)"/m;
const SINGLE_IMPORT = /^import\s+(?:[\w.]+\s+)?"([^"]+)"/gm;
const IMPORT_BLOCK = /^import\s*\(([^)]*)\)/gm;
const QUOTED = /"([^"]+)"/g;
/** An exported function, type, variable or constant declared at a file's top level (not a method). */
const TOP_LEVEL_EXPORTED = /^(?:func|type|var|const)\s+([A-Z]\w*)/gm;
/** Where a repository whose import path nothing needs is built: a host no import can name. */
const FREE_ROOT = 'local.invalid';
const FREE_HOW = 'nowhere: one package at the root, which the repository never imports, builds under any path';

/** The paths a Go file imports (its import declarations, read without a parser: enough for paths). */
export function goImports(text: string): string[] {
  const found = [...text.matchAll(SINGLE_IMPORT)].map((m) => m[1]);
  for (const block of text.matchAll(IMPORT_BLOCK))
    for (const line of block[1].split('\n')) {
      const code = line.replace(/\/\/.*$/, '');
      for (const m of code.matchAll(QUOTED)) found.push(m[1]);
    }
  return found;
}

/** `yaml.v2`, `go-yaml`, `yaml-go` → `yaml`: the package name a path's last element usually gives. */
function packageName(element: string): string {
  return element
    .replace(/\.v\d+$/, '')
    .replace(/^go-/, '')
    .replace(/-go$/, '')
    .toLowerCase();
}

/**
 * The import path of a repository without go.mod: the import comment of a package clause (a package in
 * directory `d` whose comment says `X/d` puts the root at X); else what the repository's own imports of
 * itself say (`X/sub` where `sub` is one of its package directories: the X most directories agree on;
 * the root package's external tests, `package yaml_test` importing `gopkg.in/yaml.v2`, name the root
 * itself, as does a subpackage importing a path named as the root package for a name the root declares; a standard-library path, whose first element has no dot, is never one, nor a path the
 * repository vendors, `vendored`); where that leaves a tie, the candidate named as the repository is,
 * else its name: github.com/OWNER/NAME; else, for a single root package nothing of the repository imports
 * (a bare folder name, no owner), a path of its own under a host no import names. Undefined where none tells.
 */
export function goImportPath(sources: GoSource[], repoName?: string, vendored: string[] = []): ImportPath | undefined {
  const byDepth = [...sources].sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  for (const source of byDepth) {
    const declared = IMPORT_COMMENT.exec(source.text)?.[1];
    if (!declared) continue;
    const dir = posix.dirname(source.path);
    if (dir === '.') return { path: declared, how: `the import comment in ${source.path}` };
    if (declared.endsWith(`/${dir}`))
      return { path: declared.slice(0, -dir.length - 1), how: `the import comment in ${source.path}` };
  }
  const theirs = (imported: string) => vendored.some((v) => imported === v || imported.startsWith(`${v}/`));
  const dirs = new Set(sources.map((s) => posix.dirname(s.path)).filter((d) => d !== '.'));
  const votes = new Map<string, Set<string>>();
  const vote = (root: string, dir: string) => votes.set(root, (votes.get(root) ?? new Set()).add(dir));
  const imports = new Set(sources.flatMap((s) => goImports(s.text)).filter((i) => !theirs(i)));
  for (const imported of imports) {
    const parts = imported.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(i).join('/');
      if (dirs.has(dir) && parts[0].includes('.')) vote(parts.slice(0, i).join('/'), dir);
    }
  }
  // An import named as the root package, from its external tests (package yaml_test importing
  // gopkg.in/yaml.v2) or from a subpackage using a name the root package declares (viper's remote/
  // imports github.com/spf13/viper for viper.RemoteProvider), names the root itself.
  const namesRoot = (source: GoSource, name: string) => {
    for (const imported of goImports(source.text))
      if (imported.split('/')[0].includes('.') && !theirs(imported) && packageName(imported.split('/').pop()!) === name)
        vote(imported, '.');
  };
  const rootFiles = sources.filter((s) => posix.dirname(s.path) === '.');
  const rootName = rootFiles.map((s) => /^package\s+(\w+)/m.exec(s.text)?.[1]).find((n) => n && !n.endsWith('_test'));
  const declared = new Set(rootFiles.flatMap((s) => [...s.text.matchAll(TOP_LEVEL_EXPORTED)].map((m) => m[1])));
  for (const source of sources) {
    if (posix.dirname(source.path) === '.') {
      const tested = /^package\s+(\w+)_test\b/m.exec(source.text)?.[1];
      if (tested) namesRoot(source, tested);
    } else if (rootName && rootName !== 'main') {
      const used = source.text.matchAll(new RegExp(`\\b${rootName}\\.([A-Z]\\w*)`, 'g'));
      if ([...used].some((m) => declared.has(m[1]))) namesRoot(source, rootName);
    }
  }
  // Ties go to a root the repository imports itself (its root package): a directory named as the
  // repository's last element (cobra's cobra/) makes the parent path a candidate as well.
  const score = ([root, agreeing]: [string, Set<string>]) => agreeing.size * 2 + (imports.has(root) ? 1 : 0);
  const ranked = [...votes].sort((a, b) => score(b) - score(a));
  const top = ranked.filter((v) => score(v) === score(ranked[0]));
  const name = repoName?.split('/').pop()?.toLowerCase();
  const named = top.filter(([root]) => name && packageName(root.split('/').pop()!) === packageName(name));
  const best = top.length === 1 ? top[0] : named.length === 1 ? named[0] : undefined;
  if (best) return { path: best[0], how: `the repository's imports of its own packages (${[...best[1]].sort()[0]})` };
  if (repoName && /^[\w.-]+\/[\w.-]+$/.test(repoName))
    return { path: `github.com/${repoName}`, how: `the repository's name ${repoName}` };
  // One package at the root that nothing of the repository imports builds under any path.
  if (!votes.size && !dirs.size)
    return { path: `${FREE_ROOT}/${name && /^[\w.-]+$/.test(name) ? name : 'repo'}`, how: FREE_HOW };
  return undefined;
}
