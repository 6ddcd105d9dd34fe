import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prTests, testPaths } from '../src/environments/pr-tests';
import { packageRoot } from '../src/paths';
import type { Chain, GoldTests } from '../src/schemas';
import { stageSteps } from '../src/judge/funnel';
import type { Figure } from './figure';
import { crateReleases } from './heldout/crates';
import { goReleases } from './heldout/goproxy';
import { mavenReleases } from './heldout/maven-central';
import { PROJECTS, RELEASES, type Split } from './heldout/projects';
import { pypiReleases } from './heldout/pypi';
import type { Release } from './heldout/release';
import { releaseChain } from './heldout/release-chain';
import { snapshotReleases } from './heldout/snapshot';
import { validateRun, type ValidateRun } from './validation/child';

type Language = keyof typeof PROJECTS;

type Fetch = (name: string, count: number, work: string) => Promise<Release[]>;

const FETCH: Record<Language, Fetch> = {
  python: pypiReleases,
  go: goReleases,
  rust: crateReleases,
  java: mavenReleases,
  c: snapshotReleases,
};

/** Registry names become repository names under a prefix no real GitHub owner has: `heldout-pypi/attrs`. */
const REGISTRY: Record<Language, string> = {
  python: 'pypi',
  go: 'goproxy',
  rust: 'crates',
  java: 'maven',
  c: 'github',
};

/**
 * A project of another language than Go listed by its GitHub repository (`github.com/OWNER/NAME`) is
 * read from a local snapshot of the repository under `CHAINSMITH_HELDOUT_SNAPSHOTS` (the search tool's
 * `fetch` makes them: its tree at its last semver tags), and is not fetched where none is there. The Go
 * module proxy serves Go modules alone: a Go project's `github.com/…` name is its module's.
 */
const fetchOf = (language: Language, name: string): { fetch: Fetch; registry: string } =>
  language !== 'go' && name.startsWith('github.com/')
    ? { fetch: snapshotReleases, registry: 'github' }
    : { fetch: FETCH[language], registry: REGISTRY[language] };

const say = (line: string) => console.error(`[heldout] ${line}`);
const round = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Gold validation on projects nobody here tuned on (bench/heldout/projects.ts): for each language, each
 * project's last releases become a local repository whose PRs are its releases (bench/heldout/
 * release-chain.ts), one chain per project, and `chainsmith validate` runs every chain of a split as a
 * user would. The report split's figures are printed; its stages are not shown one by one (only the
 * tune split's are, `CHAINSMITH_BENCH_SPLIT=report` to run the report split alone). Languages: the
 * arguments after the bench's name, else every one listed.
 */
export async function run(): Promise<Figure[]> {
  const cli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: npm run build first`);
  const given = process.argv.slice(3).map((l) => l.toLowerCase());
  for (const l of given)
    if (!(l in PROJECTS)) throw new Error(`unknown language ${l}: one of ${Object.keys(PROJECTS).join(', ')}`);
  const languages = (given.length ? given : Object.keys(PROJECTS)) as Language[];
  const only = process.env.CHAINSMITH_BENCH_SPLIT;
  if (only && only !== 'tune' && only !== 'report')
    throw new Error(`CHAINSMITH_BENCH_SPLIT is ${only}: it can be tune or report`);
  const splits: Split[] = only ? [only as Split] : ['tune', 'report'];
  const picked = pickedProjects(languages);
  const work = await mkdtemp(join(tmpdir(), 'chainsmith-bench-heldout-'));
  const figures: Figure[] = [];
  let aborts = 0;
  try {
    for (const language of languages)
      for (const split of splits) {
        const dir = join(work, language, split);
        const chains: Chain[] = [];
        const unfetched: string[] = [];
        for (const p of PROJECTS[language].filter((q) => q.split === split && (!picked || picked.has(q.name)))) {
          const projectDir = join(dir, p.name.replace(/[/:]/g, '+'));
          await mkdir(projectDir, { recursive: true });
          try {
            const { fetch, registry } = fetchOf(language, p.name);
            const releases = await fetch(p.name, RELEASES, projectDir);
            const { chain } = await releaseChain(
              `heldout-${registry}/${p.name.replace(/[/:]/g, '-')}`,
              releases,
              projectDir,
            );
            chains.push(chain);
            say(`${language} ${split}: ${p.name} ${releases.map((r) => r.version).join(' → ')}`);
          } catch (err) {
            unfetched.push(`${p.name} (${(err as Error).message.split('\n')[0]})`);
            say(`${language} ${split}: ${p.name} not fetched: ${(err as Error).message}`);
          }
        }
        const chainsFile = join(dir, 'chains.jsonl');
        await writeFile(chainsFile, chains.map((c) => JSON.stringify(c)).join('\n') + '\n');
        const home = join(dir, 'home');
        await mkdir(home, { recursive: true });
        const stages = chains.reduce((n, c) => n + c.prs.length, 0);
        say(`${language} ${split}: validating ${chains.length} chains, ${stages} stages`);
        const result = await validateRun(cli, chainsFile, join(dir, 'validated.jsonl'), home, (l) => {
          if (split === 'tune') say(`${language} ${l}`);
        });
        if (result.exitCode !== 0 || result.records.length < stages) {
          aborts += 1;
          say(
            // The report split's stages are not shown, not even a stopped run's last ones.
            `${language} ${split}: validate stopped (exit ${result.exitCode}, ${result.records.length} of ${stages} stages written)${split === 'tune' ? `:\n${result.tail}` : ''}`,
          );
        }
        figures.push(...(await splitFigures(language, split, chains, result, unfetched)));
      }
  } finally {
    if (process.env.CHAINSMITH_BENCH_KEEP) say(`kept ${work} (CHAINSMITH_BENCH_KEEP)`);
    else await rm(work, { recursive: true, force: true });
  }
  figures.push({
    measure: 'heldout_aborts',
    value: aborts,
    unit: 'runs',
    goal: '= 0: validate runs that stopped before writing every stage',
  });
  return figures;
}

/**
 * `CHAINSMITH_BENCH_PROJECTS=a,b` runs only those listed projects (to read a new wave's tune half without
 * the rest); a name the languages' lists do not hold is an error, not an empty run.
 */
function pickedProjects(languages: Language[]): Set<string> | undefined {
  const given = process.env.CHAINSMITH_BENCH_PROJECTS;
  if (!given) return undefined;
  const names = given
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const listed = new Set(languages.flatMap((l) => PROJECTS[l].map((p) => p.name)));
  const unknown = names.filter((n) => !listed.has(n));
  if (unknown.length)
    throw new Error(`CHAINSMITH_BENCH_PROJECTS names ${unknown.join(', ')}: not listed for ${languages.join(', ')}`);
  say(`only ${names.join(', ')} (CHAINSMITH_BENCH_PROJECTS): figures of these alone`);
  return new Set(names);
}

/** Where each stage got to (an environment, tests that ran and reported, a verifying test), as `validate`'s funnel counts it. */
async function splitFigures(
  language: string,
  split: Split,
  chains: Chain[],
  r: ValidateRun,
  unfetched: string[],
): Promise<Figure[]> {
  const suffix = `_${language}${split === 'tune' ? '_tune' : ''}`;
  // As validation counts them: a release that only deletes test files (its archive dropped the suite) has none
  // to run; one that changes only the unit tests inside its code (Rust's #[cfg(test)] modules) has some.
  const withTests = new Set<string>();
  for (const c of chains)
    for (const p of c.prs)
      if (testPaths(await prTests(c.repo.path, p)).length) withTests.add(`${c.repo.name}#${p.number}`);
  const records = r.records.filter((g) => withTests.has(`${g.repo}#${g.prNumber}`));
  const n = withTests.size;
  const built = records.filter((g) => stageSteps(g).environmentBuilt);
  const ran = built.filter((g) => (g.goldRuns ?? 0) > 0 && stageSteps(g).testsRunnable);
  const verified = records.filter((g: GoldTests) => g.status === 'verified');
  const kinds = new Map<string, number>();
  for (const g of records)
    if (g.status !== 'verified') kinds.set(g.reason?.kind ?? 'none', (kinds.get(g.reason?.kind ?? 'none') ?? 0) + 1);
  const byKind = [...kinds].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  const of = `of ${n} stages whose release changes a test file or inline tests (${chains.length} projects${unfetched.length ? `; not fetched: ${unfetched.join('; ')}` : ''})`;
  const rate = (k: number) => (n ? round(k / n) : 0);
  return [
    {
      measure: `heldout_env_built${suffix}`,
      value: rate(built.length),
      unit: 'ratio',
      goal: `>= 0.8: stages whose environment built, ${of}`,
    },
    {
      measure: `heldout_tests_ran${suffix}`,
      value: rate(ran.length),
      unit: 'ratio',
      goal: `>= 0.7: stages whose tests ran and reported, ${of}`,
    },
    {
      measure: `heldout_stage_yield${suffix}`,
      value: rate(verified.length),
      unit: 'ratio',
      goal: `context: verified stages, ${of}; unverified by kind: ${byKind}`,
    },
  ];
}
