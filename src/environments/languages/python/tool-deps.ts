import { requirementName, tomlKeys, tomlString, tomlStrings, tomlTable, type TomlTable } from './pyproject';

/** Groups and environments that hold what the tests need (dev ones too: tools often keep pytest there). */
const TEST_OR_DEV = /^(tests?|testing|dev|develop|development|default)$/i;

/**
 * Test and development requirements that tools keep outside the standard tables: Poetry's
 * dev-dependencies and test or dev groups, PDM's dev-dependencies, Hatch's default and test
 * environments (`hatch test`'s too), uv's and Rye's dev-dependencies, tox's [testenv] deps. Without
 * them pytest plugins a project's configuration names (--cov, asyncio) are missing, and its tests
 * fail or are skipped. Poetry's entries are names only (its
 * version syntax is not PEP 508); the resolver picks what the registry had as of the manifests' date.
 */
export function toolTestRequirements(pyproject: TomlTable | undefined, toxIni: string): string[] {
  const found: string[] = [];
  const poetry = tomlTable(pyproject, 'tool.poetry');
  const poetryGroups = tomlKeys(tomlTable(poetry, 'group')).filter((g) => TEST_OR_DEV.test(g));
  for (const deps of [
    tomlTable(poetry, 'dev-dependencies'),
    ...poetryGroups.map((g) => tomlTable(poetry, `group.${g}.dependencies`)),
  ]) {
    // A path, git or URL dependency is no registry package: a name lookup could fetch a stranger's.
    const local = (spec: unknown): boolean =>
      Array.isArray(spec)
        ? spec.some(local)
        : typeof spec === 'object' && spec !== null && ['path', 'git', 'url'].some((k) => k in spec);
    for (const [name, spec] of Object.entries(deps ?? {})) if (name !== 'python' && !local(spec)) found.push(name);
  }
  const pdm = tomlTable(pyproject, 'tool.pdm.dev-dependencies');
  for (const group of tomlKeys(pdm).filter((g) => TEST_OR_DEV.test(g))) found.push(...(tomlStrings(pdm, group) ?? []));
  // hatch-test is the environment `hatch test` runs in; an environment's extra-dependencies add to what it inherits.
  for (const env of ['default', 'test', 'tests', 'hatch-test'])
    for (const key of ['dependencies', 'extra-dependencies'])
      found.push(...(tomlStrings(tomlTable(pyproject, `tool.hatch.envs.${env}`), key) ?? []));
  // uv's and Rye's development requirements before PEP 735's [dependency-groups]: one list each.
  for (const tool of ['uv', 'rye'])
    found.push(...(tomlStrings(tomlTable(pyproject, `tool.${tool}`), 'dev-dependencies') ?? []));
  found.push(...toxDeps(toxIni));
  // The project itself (tox and Hatch often list it) is installed from its tree, not fetched.
  const own = tomlString(tomlTable(pyproject, 'project') ?? poetry, 'name');
  const seen = new Set<string>(own ? [requirementName(own)] : []);
  return found.filter((r) => /^[A-Za-z0-9]/.test(r) && !seen.has(requirementName(r)) && seen.add(requirementName(r)));
}

/**
 * The requirement lines of tox.ini's [testenv] deps (continuation lines). -r files, substitutions and
 * paths are left out, and so are lines for some environments only ("py27: pytest<5"): which of them the
 * stage's Python is cannot be told here, and an old pin could win over the general line.
 */
export function toxDeps(ini: string): string[] {
  return testenvDeps(ini).filter((line) => /^[A-Za-z0-9][\w.-]*(\[[^\]]*\])?\s*([<>=!~;].*)?$/.test(line));
}

/**
 * A tox line for some environments only: a factor condition before a colon ("py27: pytest<5",
 * "py27,py36: mock", "!nocov: coverage"), with its braces expanded by tox ("py{36,37}-crypto-{linux,windows}: crypto").
 */
const FOR_SOME_ENVIRONMENTS = /^[\w{},.!-]+:\s/;

/** tox.ini's [testenv] deps, a line each, comments and the lines for some environments only left out. */
function testenvDeps(ini: string): string[] {
  const section = /^\[testenv\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(ini)?.[1] ?? '';
  const deps = /^deps\s*=([^\n]*(?:\n[ \t]+[^\n]*)*)/m.exec(section)?.[1] ?? '';
  return deps
    .split('\n')
    .map((line) => line.replace(/\s#.*$/, '').trim())
    .filter((line) => line && !FOR_SOME_ENVIRONMENTS.test(line));
}

/**
 * The project's extras its test runs install: tox.ini's [testenv] `extras` (a comma or a line between
 * names) and the test sessions of its noxfile.py (`session.install(".[tests]")`, `"-e", ".[test,yaml]"`).
 * `forSome`: those of tox's lines for some environments only ("py27: legacy", "py{36,37}-crypto: crypto"),
 * which some of its tests need (a suite that tests an optional dependency runs it in the environments that
 * install it) and which may not resolve for the stage's Python.
 */
export function extrasNamed(toxIni: string, noxfile: string): { named: string[]; forSome: string[] } {
  const names: string[] = [];
  const forSome: string[] = [];
  const section = /^\[testenv\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toxIni)?.[1] ?? '';
  const extras = /^extras\s*=([^\n]*(?:\n[ \t]+[^\n]*)*)/m.exec(section)?.[1] ?? '';
  for (const line of extras.split('\n').map((l) => l.replace(/\s#.*$/, '').trim()))
    if (FOR_SOME_ENVIRONMENTS.test(line)) forSome.push(...line.replace(FOR_SOME_ENVIRONMENTS, '').split(','));
    else if (line) names.push(...line.split(','));
  for (const session of testSessions(noxfile))
    for (const m of session.matchAll(/["'](?:-e\s*)?\.\[([\w,\s-]+)\]["']/g)) names.push(...m[1].split(','));
  const valid = (list: string[]) => [
    ...new Set(list.map((n) => n.trim()).filter((n) => /^[A-Za-z0-9][\w.-]*$/.test(n))),
  ];
  const named = valid(names);
  return { named, forSome: valid(forSome).filter((n) => !named.includes(n)) };
}

/** The sessions of a noxfile.py whose function name says test. */
const testSessions = (noxfile: string) => noxfile.split(/^(?=\S)/m).filter((block) => /^def\s+\w*test/i.test(block));

/**
 * The requirement files a project's test runs install by `-r` (`--requirement`): tox.ini's [testenv]
 * deps (`-r{toxinidir}/requirements/ci.txt`) and the test sessions of its noxfile.py (a function whose
 * name says test, `session.install("-r", "requirements/pytest.txt")`). Their names follow no
 * convention, so the usual places (resolver-inputs.ts) miss them, and with them what the tests import.
 * Paths relative to the root; a path built at run time (an f-string, a variable) is not seen.
 */
export function requirementFilesNamed(toxIni: string, noxfile: string): string[] {
  const paths: string[] = [];
  for (const line of testenvDeps(toxIni)) {
    const m = /^(?:-r|--requirement)\s*=?\s*(\S+)$/.exec(line);
    if (m) paths.push(m[1].replace(/^\{toxinidir\}\//, ''));
  }
  for (const install of testSessions(noxfile).flatMap((s) => [...s.matchAll(/\.install\(([^)]*)\)/g)].map((m) => m[1])))
    for (const m of install.matchAll(/["'](?:-r|--requirement)(?:["']\s*,\s*["']|=)?([^"'\s]+)["']/g)) paths.push(m[1]);
  const relative = paths.map((p) => p.replace(/^\.\//, '')).filter((p) => !/^\/|\.\.|[{$]/.test(p));
  return [...new Set(relative)];
}
