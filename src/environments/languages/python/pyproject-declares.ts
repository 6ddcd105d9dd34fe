import { isTable, parseToml, tomlKeys, tomlString, tomlStrings, tomlTable, type TomlTable } from './pyproject';

/** What a pyproject.toml declares that the choice of what to resolve, and on which Python, reads. */
export interface PyprojectDeclares {
  /** The parsed file; undefined where it is not TOML. */
  doc: TomlTable | undefined;
  /** Not TOML: handed to the resolver as it is (as a project file it reads), whose error names the stage's reason. */
  unreadable: boolean;
  /** A [project] table (dotted keys `project.x = …` make one too). */
  project: boolean;
  buildSystem: boolean;
  dependencies: string[];
  /** Each extra's requirements, in order; undefined where its value is no array. */
  extras: Map<string, string[] | undefined>;
  /** Each PEP 735 group's requirements, those of the groups it includes (`{include-group = …}`) in their place; undefined where no array. */
  groups: Map<string, string[] | undefined>;
  buildRequires: string[];
  /** [build-system] build-backend: the module a PEP 517 frontend builds the project with. */
  buildBackend: string | undefined;
  requiresPython: string | undefined;
  /** A [tool.poetry.dependencies] table, and its `python` constraint (Poetry's syntax). */
  poetryDependencies: boolean;
  poetryPython: string | undefined;
  /** The package metadata sits in a build backend's own table (Poetry before 2, flit's old layout, pdm before 1). */
  backendMetadata: boolean;
}

const lists = (table: TomlTable | undefined) => new Map(tomlKeys(table).map((k) => [k, tomlStrings(table, k)]));

/** A dependency group's requirements with included groups expanded, as the resolver installs them; a cycle is cut. */
function groupRequirements(groups: TomlTable | undefined, name: string, seen: string[] = []): string[] | undefined {
  const entries = groups?.[name];
  if (!Array.isArray(entries)) return undefined;
  return entries.flatMap((e) => {
    if (typeof e === 'string') return [e];
    const included = tomlString(isTable(e) ? e : undefined, 'include-group');
    return included && !seen.includes(included) ? (groupRequirements(groups, included, [...seen, name]) ?? []) : [];
  });
}

export function pyprojectDeclares(text: string): PyprojectDeclares {
  const doc = parseToml(text);
  const project = tomlTable(doc, 'project');
  const poetryDeps = tomlTable(doc, 'tool.poetry.dependencies');
  const groupsTable = tomlTable(doc, 'dependency-groups');
  return {
    doc,
    unreadable: doc === undefined,
    project: project !== undefined,
    buildSystem: tomlTable(doc, 'build-system') !== undefined,
    dependencies: tomlStrings(project, 'dependencies') ?? [],
    extras: lists(tomlTable(doc, 'project.optional-dependencies')),
    groups: new Map(tomlKeys(groupsTable).map((g) => [g, groupRequirements(groupsTable, g)])),
    buildRequires: tomlStrings(tomlTable(doc, 'build-system'), 'requires') ?? [],
    buildBackend: tomlString(tomlTable(doc, 'build-system'), 'build-backend'),
    requiresPython: tomlString(project, 'requires-python'),
    poetryDependencies: poetryDeps !== undefined,
    // A string, or a table with the constraint under `version`.
    poetryPython: tomlString(poetryDeps, 'python') ?? tomlString(tomlTable(poetryDeps, 'python'), 'version'),
    backendMetadata:
      tomlTable(doc, 'tool.poetry') !== undefined ||
      tomlTable(doc, 'tool.flit.metadata') !== undefined ||
      tomlString(tomlTable(doc, 'tool.pdm'), 'name') !== undefined,
  };
}

/** Extras and groups a test run needs, by their names; `dev` ones usually pull the test ones in. */
export const TESTISH = /^(tests?|testing|dev)$/i;
/** Documentation's extras and requirement files (Read the Docs' too: `requirements-rtd.txt`): never what a test run needs. */
export const DOCS = /^docs?$|documentation|sphinx|^rtd$|readthedocs/i;
/** A requirement file of documentation: a part of its path or name is (`docs-requirements.txt`, `requirements/doc.txt`). */
export const docsFile = (path: string) => path.split(/[/._-]/).some((part) => DOCS.test(part));

/** The extras and dependency groups a test environment asks the resolver for. */
export interface TestSelection {
  /** Extras to include; 'all' asks the resolver for every extra. */
  extras: string[] | 'all';
  /** Extras a test run needs, tried alone when all of them do not resolve. */
  testExtras: string[];
  /** PEP 735 dependency groups to include. */
  groups: string[];
}

/**
 * What a pyproject.toml's project asks the resolver for: its extras but the docs' (every extra where
 * the project file resolved is another, `resolvesProject`, whose extras cannot be read here), and its
 * test groups, else a `dev` one.
 */
export function testSelection(p: PyprojectDeclares, resolvesProject: boolean): TestSelection {
  const extras = [...p.extras.keys()];
  const groups = [...p.groups.keys()];
  const testGroups = groups.filter((g) => TESTISH.test(g) && !/^dev$/i.test(g));
  return {
    extras: p.project ? extras.filter((e) => !DOCS.test(e)) : resolvesProject ? 'all' : [],
    testExtras: extras.filter((e) => TESTISH.test(e)),
    groups: testGroups.length ? testGroups : groups.filter((g) => /^dev$/i.test(g)),
  };
}
