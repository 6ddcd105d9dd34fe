import Docker from 'dockerode';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeToolsVenv } from '../src/environments/languages/python/tools-venv';
import { packageRoot } from '../src/paths';
import { run as runProcess } from '../src/process/run';
import type { GoldTests } from '../src/schemas';
import type { Figure } from './figure';
import {
  BASELINE_COMMIT,
  baselineDir,
  layerBytes,
  mergeRuns,
  removeEnvImages,
  validateRun,
  type ValidateRun,
} from './validation/child';
import { bundledRepos, reposDir, type BundledRepo } from './validation/repos';
import { todayRuns, type TodayRun } from './validation/today';

/** CHAINSMITH_BENCH_CHAINS=N validates only the last N chains of each chains file, the most recent history (a quick look; the figures' goals say so). */
const CHAIN_LIMIT = Number(process.env.CHAINSMITH_BENCH_CHAINS ?? 0);

const say = (line: string) => console.error(`[validation] ${line}`);
const round = (value: number, digits: number) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value;

/**
 * Languages to measure: the arguments after the bench's name (`npm run bench -- validation c go`) or
 * CHAINSMITH_BENCH_LANGS=c,go; by default every bundled repository's, whole.
 */
function languages(repos: BundledRepo[]): string[] {
  const given = [...process.argv.slice(3), ...(process.env.CHAINSMITH_BENCH_LANGS ?? '').split(',')]
    .map((l) => l.trim().toLowerCase())
    .filter(Boolean);
  const known = new Set(repos.map((r) => r.language));
  for (const l of given)
    if (!known.has(l))
      throw new Error(`unknown language ${l}: the repositories in ${reposDir()} are in ${[...known].join(', ')}`);
  return given.length ? given : [...known];
}

/** One repository's part of its language's figures: its chains, and both codes' runs on them. */
interface RepoRun {
  name: string;
  chains: Array<{ id: string; prs: unknown[] }>;
  stages: number;
  slice: string;
  ours: ValidateRun;
  today: TodayRun;
  layers: number[];
  warm: { ours: number; today: number };
}

/**
 * Gold validation of whole mined histories, this code against today's (BASELINE_COMMIT), on the same
 * chains in the same run. For each repository: mine its whole history with this code into a chains
 * file; remove the repository's environment images before each code's run, so that neither starts warm;
 * validate every stage with this code, then with today's, each as a `chainsmith validate` child process
 * with a fresh data directory. This code runs first, with the host's resolver caches cold.
 */
export async function run(): Promise<Figure[]> {
  const docker = new Docker();
  const newCli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(newCli)) throw new Error(`${newCli} is missing: npm run build first`);
  const work = await mkdtemp(join(tmpdir(), 'chainsmith-bench-validation-'));
  const figures: Figure[] = [];
  let aborts = 0;
  try {
    const repos = await bundledRepos();
    const wanted = languages(repos);
    const oldCli = await buildBaseline(work);
    say(`repositories in ${reposDir()}: ${repos.map((r) => `${r.name} (${r.language})`).join(', ') || 'none'}`);
    const byLanguage = new Map<string, RepoRun[]>();
    for (const repo of repos) {
      if (!wanted.includes(repo.language)) continue;
      const part = await validateRepo(repo, work, docker, newCli, oldCli);
      if (part.ours.exitCode !== 0 || part.ours.records.length < part.stages) aborts += 1;
      // On stderr as each repository ends: a run of several stopped later keeps the ones done.
      for (const f of languageFigures(repo.language, [part])) say(`${repo.name}: ${JSON.stringify(f)}`);
      byLanguage.set(repo.language, [...(byLanguage.get(repo.language) ?? []), part]);
    }
    for (const [language, parts] of byLanguage) figures.push(...languageFigures(language, parts));
  } finally {
    // The data directories hold each code's stores and fetched packages (gigabytes on a whole run).
    if (process.env.CHAINSMITH_BENCH_KEEP) say(`kept ${work} (CHAINSMITH_BENCH_KEEP)`);
    else await rm(work, { recursive: true, force: true });
  }
  figures.push({
    measure: 'aborts',
    value: aborts,
    unit: 'runs',
    goal: '= 0: validate runs of this code that stopped before writing every stage',
  });
  return figures;
}

/**
 * One repository, both codes: mine its whole history with this code into a chains file (the last
 * CHAINSMITH_BENCH_CHAINS chains of it, where set), then validate every stage with this code and with
 * today's, each from an engine without its language's environment images.
 */
async function validateRepo(
  repo: BundledRepo,
  work: string,
  docker: Docker,
  newCli: string,
  oldCli: string,
): Promise<RepoRun> {
  const { name, bundle, clone, language } = repo;
  const chainsFile = join(work, `${bundle}.chains.jsonl`);
  const mined = join(work, `${bundle}.mined.jsonl`);
  await must('node', [newCli, 'mine', '--repo', clone, '--name', name, '--out', mined], work);
  let lines = (await readFile(mined, 'utf8')).split('\n').filter((l) => l.trim());
  if (CHAIN_LIMIT > 0) lines = lines.slice(-CHAIN_LIMIT);
  await writeFile(chainsFile, lines.join('\n') + '\n');
  const chains = lines.map((l) => JSON.parse(l) as { id: string; prs: Array<{ number: number; baseSha: string }> });
  // What was validated, so that runs are compared on the same stages: a slice is the last N chains
  // of this checkout's mine, and a change to the miner changes which chains those are.
  const stageList = chains.flatMap((c) => c.prs.map((p) => `${p.number}@${p.baseSha.slice(0, 10)}`));
  const slice = createHash('sha256').update(stageList.join(' ')).digest('hex').slice(0, 12);
  say(`${name}: stages ${stageList.join(' ')} (slice ${slice})`);
  const stages = chains.reduce((n, c) => n + c.prs.length, 0);
  say(
    `${name} (${language}): ${chains.length} chains, ${stages} stages${CHAIN_LIMIT > 0 ? ` (the last ${CHAIN_LIMIT} chains only: CHAINSMITH_BENCH_CHAINS)` : ''}`,
  );

  // Each code starts from an engine without the repository's environment images, nor any other of
  // its language (keys leave the name out): neither finds images of an earlier run (a run stopped
  // part-way leaves its images), nor of a test or a run under another name, nor seeds from the other's.
  const clear = async (who: string) => {
    const kept = await removeEnvImages(docker, name, language);
    if (kept)
      say(
        `${name}: ${kept} environment image(s) in use could not be removed before ${who}; a stage on one of them starts warm`,
      );
    return kept;
  };
  const oursWarm = await clear('this code');
  say(`${name}: validating with this code`);
  const ours = await validateRun(
    newCli,
    chainsFile,
    join(work, `${bundle}.new.jsonl`),
    await fresh(work, `${bundle}-new`, language),
    (l) => say(`${name} new ${l}`),
  );
  const layers = await Promise.all(ours.imagesBuilt.map((t) => layerBytes(docker, t)));
  const todayWarm = await clear("today's code");
  say(`${name}: validating with today's code (${BASELINE_COMMIT})`);
  const today = await todayRuns(oldCli, lines, work, bundle, await fresh(work, `${bundle}-today`, language), (l) =>
    say(`${name} today ${l}`),
  );
  for (const [who, r] of [
    ['this code', ours],
    ["today's code", today.run],
  ] as const)
    say(
      `${name}: ${who} built ${r.imagesBuilt.length} environment image(s)${r.buildsFailed.length ? `; ${r.buildsFailed.length} build(s) left no image: ${r.buildsFailed.join(', ')}` : ''}`,
    );
  if (ours.exitCode !== 0 || ours.records.length < stages)
    say(
      `${name}: this code stopped (exit ${ours.exitCode}, ${ours.records.length} of ${stages} stages written):\n${ours.tail}`,
    );
  if (today.stoppedIn.length)
    say(
      `${name}: today's code stopped in ${today.stoppedIn.length} chain(s) (${today.stoppedIn.join(', ')}) and was started again after each; it did ${today.run.stagesDone} of ${stages} stages`,
    );
  return { name, chains, stages, slice, ours, today, layers, warm: { ours: oursWarm, today: todayWarm } };
}

/** A language's figures over its repositories' runs (one repository's alone while the run goes on). */
function languageFigures(language: string, parts: RepoRun[]): Figure[] {
  const l = `_${language}`;
  const ours = mergeRuns(parts.map((p) => p.ours));
  const today = mergeRuns(parts.map((p) => p.today.run));
  const stoppedIn = parts.reduce((n, p) => n + p.today.stoppedIn.length, 0);
  const skipped = parts.reduce((n, p) => n + p.today.skipped, 0);
  const stages = parts.reduce((n, p) => n + p.stages, 0);
  const chains = parts.reduce((n, p) => n + p.chains.length, 0);
  const layers = parts.flatMap((p) => p.layers);
  const warm = { ours: parts.reduce((n, p) => n + p.warm.ours, 0), today: parts.reduce((n, p) => n + p.warm.today, 0) };
  const slice = parts.map((p) => p.slice).join('+');
  const names = parts.length > 1 ? ` in ${parts.map((p) => p.name).join(', ')}` : '';
  const oursBuilt = ours.imagesBuilt.length;
  const todayBuilt = today.imagesBuilt.length;
  // Builds that left no image, and images in use that could not be removed before a run (found warm).
  const caveat = (r: ValidateRun, kept: number) =>
    `${r.buildsFailed.length ? `; ${r.buildsFailed.length} build(s) left no image` : ''}${kept ? `; ${kept} image(s) in use were on the engine before its run` : ''}`;
  const verified = (r: GoldTests) => r.status === 'verified';
  // Chain by chain within each repository: a run that stopped early has fewer records than its chains' stages.
  const full = parts
    .flatMap((p) => groupByChain(p.ours.records, p.chains))
    .filter((records) => records.length > 0 && records.every(verified)).length;
  const cpuHours = (r: ValidateRun) => (r.processCpu + r.containerCpu) / 3600;
  const rate = (r: ValidateRun, done: number) => (done ? done / cpuHours(r) : 0);
  const ourRate = rate(ours, ours.records.length);
  const todayRate = rate(today, today.stagesDone);
  // Today's code went through every chain (started again after each it stopped in), this code wrote every stage.
  const comparable = today.stagesDone + skipped === ours.records.length;
  const stopped = stoppedIn
    ? `; today's code stopped in ${stoppedIn} chain(s) and was started again after each: its rate leaves out the ${skipped} stage(s) from where it stopped to those chains' ends, this code's counts them`
    : '';
  const ran = ours.records.filter((r) => (r.goldRuns ?? 0) > 0);
  const flaky = ran.filter((r) => (r.flaky?.length ?? 0) > 0).length;
  const kinds = new Map<string, number>();
  for (const r of ours.records) if (!verified(r)) kinds.set(kindOf(r), (kinds.get(kindOf(r)) ?? 0) + 1);
  const cpu = (r: ValidateRun) =>
    `${round(r.processCpu, 0)} s in processes + ${round(r.containerCpu, 0)} s in containers (${round(r.buildCpu, 0)} s in environment builds, ${round(r.goldCpu, 0)} s in ${r.goldSandboxes} gold sandboxes${sandboxNotes(r)}), ${round(r.wallSeconds, 0)} s wall at load average ${round(r.loadAverage, 1)}`;
  return [
    {
      measure: `stage_validation_yield${l}`,
      value: round(ours.records.filter(verified).length / stages, 3),
      unit: 'ratio',
      goal: `context: stages with a stable FAIL_TO_PASS test, of ${stages} mined${names}${CHAIN_LIMIT > 0 ? ` (last ${CHAIN_LIMIT} chains only)` : ''}; slice ${slice} (a hash of the stages' PR numbers and bases: runs compare only where it is the same)`,
    },
    {
      measure: `chain_full_yield${l}`,
      value: round(full / chains, 3),
      unit: 'ratio',
      goal: `context: chains whose every stage verified, of ${chains}`,
    },
    {
      measure: `stages_per_cpu_hour${l}`,
      value: round(ourRate, 1),
      unit: 'stages/cpu-h',
      goal: `context: this code; ${ours.records.length} stages, ${cpu(ours)}`,
    },
    {
      measure: `stages_per_cpu_hour_today${l}`,
      value: round(todayRate, 1),
      unit: 'stages/cpu-h',
      goal: `context: today's code (${BASELINE_COMMIT}); ${today.stagesDone} stages, ${cpu(today)}`,
    },
    {
      measure: `stages_per_cpu_hour_speedup${l}`,
      value: round(todayRate && comparable ? ourRate / todayRate : NaN, 2),
      unit: 'ratio',
      goal: comparable
        ? `>= 3${stopped}`
        : `>= 3; none: today's code did ${today.stagesDone} stages and skipped ${skipped}, this code wrote ${ours.records.length}, so the rates are over different stages`,
    },
    {
      measure: `envs_per_stage${l}`,
      value: round(oursBuilt / stages, 3),
      unit: 'ratio',
      goal: `<= 0.3: environments this code built (${oursBuilt}) per stage${caveat(ours, warm.ours)}`,
    },
    {
      measure: `envs_per_stage_today${l}`,
      value: round(today.stagesDone ? todayBuilt / today.stagesDone : NaN, 3),
      unit: 'ratio',
      goal: `context: today's code built ${todayBuilt} for ${today.stagesDone} stages${caveat(today, warm.today)}`,
    },
    {
      measure: `new_layer_mb_per_env${l}`,
      value: round(layers.length ? layers.reduce((a, b) => a + b, 0) / layers.length / 1e6 : 0, 1),
      unit: 'MB',
      goal: "context: mean bytes an environment's own layer adds (Docker's image history)",
    },
    {
      measure: `flaky_rate${l}`,
      value: round(ran.length ? flaky / ran.length : 0, 3),
      unit: 'ratio',
      goal: `context: stages with a flaky test, of ${ran.length} whose tests ran`,
    },
    ...[...kinds].sort().map(([kind, n]) => ({
      measure: `unverified_${kind.replace(/-/g, '_')}${l}`,
      value: n,
      unit: 'stages',
      goal: 'context: unverified stages by reason kind',
    })),
  ];
}

/** How many sandboxes lived under a second (a stage set up and left: no test to run), and how many were gone before their CPU was read. */
function sandboxNotes(r: ValidateRun): string {
  const notes = [
    r.goldBrief ? `${r.goldBrief} of them under 1 s` : '',
    r.goldUnread ? `${r.goldUnread} gone before their CPU was read` : '',
  ].filter(Boolean);
  return notes.length ? ` (${notes.join(', ')})` : '';
}

/** Each chain's records, in the order `validate` wrote them (chain by chain, stage by stage). */
function groupByChain(records: GoldTests[], chains: Array<{ prs: unknown[] }>): GoldTests[][] {
  const out: GoldTests[][] = [];
  let at = 0;
  for (const c of chains) {
    out.push(records.slice(at, at + c.prs.length));
    at += c.prs.length;
  }
  return out;
}

function kindOf(r: GoldTests): string {
  return r.reason?.kind ?? (r.status === 'invalid' ? 'invalid' : 'no-verifying-test');
}

/** Today's code: `git archive` of BASELINE_COMMIT, with this checkout's node_modules, compiled. */
async function buildBaseline(work: string): Promise<string> {
  const dir = baselineDir(work);
  await mkdir(dir, { recursive: true });
  await must(
    'bash',
    ['-o', 'pipefail', '-c', `git -C "$1" archive ${BASELINE_COMMIT} | tar -x -C "$2"`, 'archive', packageRoot(), dir],
    work,
  );
  await symlink(join(packageRoot(), 'node_modules'), join(dir, 'node_modules'));
  say(`building today's code (${BASELINE_COMMIT}) in ${dir}`);
  await must('node', [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], dir);
  return join(dir, 'dist', 'src', 'cli', 'main.js');
}

/**
 * A fresh data directory for one code's run. For Python it holds, before the clock, the uv this code
 * pins (UV_PIN), where both codes look for it: today's code installs the newest uv the index serves
 * where it finds none, and uv moves (0.12 refuses the `.tar.bz2` sdists 2010s releases shipped), so
 * the two codes would resolve with different uvs, and a difference of uv's would be read as one of
 * the code's.
 */
async function fresh(work: string, name: string, language: string): Promise<string> {
  const dir = join(work, 'home', name);
  await mkdir(dir, { recursive: true });
  if (language === 'python') await makeToolsVenv(join(dir, 'tools', 'uv'));
  return dir;
}

async function must(cmd: string, args: string[], cwd: string): Promise<void> {
  const r = await runProcess(cmd, args, { cwd, maxOutputBytes: 4_000 });
  if (r.exitCode !== 0)
    throw new Error(
      `${cmd} ${args.slice(0, 3).join(' ')} failed (exit ${r.exitCode ?? r.signal}): ${(r.startError?.message ?? r.stderr).trim()}`,
    );
}
