import Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { MANIFEST_LABEL } from '../../src/environments/manifest';
import { GoldTestsSchema, type GoldTests } from '../../src/schemas';
import { run } from '../../src/process/run';
import { OwnedContainers, type OwnedContainer } from './owned-containers';

/** One `chainsmith validate` run, as a child process, and what it cost. */
export interface ValidateRun {
  records: GoldTests[];
  /** Stages it reported done on stdout (`[k/N]` lines): where it stopped, for a run that did not finish. */
  stagesDone: number;
  exitCode: number;
  /** CPU seconds of the child and every process it waited for (user + system, from bash's `times`). */
  processCpu: number;
  /** CPU seconds of the containers it owned (build and gold sandboxes), from their cgroups, read every 0.1 s while they live. */
  containerCpu: number;
  /** Of containerCpu: environment builds (containers labelled with the image they build), gold sandboxes (the rest). */
  buildCpu: number;
  goldCpu: number;
  /**
   * Gold sandboxes started, every one (Docker's event stream), however briefly it lived: today's code
   * starts one for each stage with an environment, tests or not (a sandbox of a stage without tests lives
   * about a second); this code one per stage whose tests ran (a stage validated before in the run is not).
   */
  goldSandboxes: number;
  /** Of those, how many lived under a second, and how many were gone before their cgroup was read (their CPU is not counted). */
  goldBrief: number;
  goldUnread: number;
  /**
   * Environment images its own build containers built (their label names the image), counted from
   * those containers rather than from the engine's images before and after: an image another process
   * builds meanwhile (a test on the same repository) is not counted, nor one found already there.
   */
  imagesBuilt: string[];
  /** Builds it started whose image is not on the engine after the run (failed, timed out, or cut short). */
  buildsFailed: string[];
  wallSeconds: number;
  /**
   * The machine's one-minute load average over the run (sampled every 5 s): the two codes run one after
   * the other, and CPU time grows with the load (the same work takes longer on shared cores and caches),
   * so a ratio of two runs at different loads leans towards the one run at the lower.
   */
  loadAverage: number;
  /** The last lines of its output, for a run that failed. */
  tail: string;
}

/**
 * Runs `node <cli> validate --chains FILE --out OUT` with CHAINSMITH_HOME set to `home` (a fresh data
 * directory: no cached gold validation or fetch). The containers it starts carry its process id in
 * their owner label; each is counted from Docker's event stream, and its CPU read from its cgroup every
 * 0.1 s while it lives (the last tenth of a second of each is missed); the Docker daemon's own work is not counted.
 */
export async function validateRun(
  cli: string,
  chains: string,
  out: string,
  home: string,
  log: (line: string) => void,
): Promise<ValidateRun> {
  const docker = new Docker();
  const started = Date.now();
  const script = 'node "$@" & pid=$!; echo "CHILD_PID $pid" >&2; wait $pid; s=$?; times >&2; exit $s';
  let pid = 0;
  let stagesDone = 0;
  let firstErr = '';
  const running = run('bash', ['-c', script, 'validate', cli, 'validate', '--chains', chains, '--out', out], {
    // In the data directory: no chainsmith.config.json of the caller's folder applies.
    cwd: home,
    env: { CHAINSMITH_HOME: home },
    // A bench told to stop ends the validate run under bash too (src/process/end-on-signals.ts).
    ownGroup: true,
    maxOutputBytes: 200_000,
    onStdout: (d) => {
      for (const m of d.matchAll(/^\[(\d+)\/(\d+)\] (.*)$/gm)) {
        stagesDone = Math.max(stagesDone, Number(m[1]));
        log(`[${m[1]}/${m[2]}] ${m[3].slice(0, 160)}`);
      }
    },
    onStderr: (d) => {
      if (pid) return;
      firstErr += d;
      const m = /CHILD_PID (\d+)/.exec(firstErr);
      if (m) pid = Number(m[1]);
    },
  });
  const watch = new OwnedContainers(docker);
  // The watch starts once the child's process id is known; the event stream is replayed from before the child started.
  let watching: Promise<void> | undefined;
  const since = Math.floor(started / 1000) - 1;
  const loads = [loadavg()[0]];
  const loadTimer = setInterval(() => loads.push(loadavg()[0]), 5_000);
  const timer = setInterval(() => {
    if (pid && !watching) watching = watch.start(`${hostname()}:${pid}`, since);
  }, 50);
  const { exitCode, stdout, stderr } = await running;
  clearInterval(timer);
  clearInterval(loadTimer);
  loads.push(loadavg()[0]);
  if (!watching && pid) watching = watch.start(`${hostname()}:${pid}`, since);
  if (!watching) throw new Error(`validate's process id never came (exit ${exitCode}): ${firstErr.slice(0, 500)}`);
  await watching;
  await watch.stop();
  const owned = [...watch.containers.values()];
  const builds = owned.filter((c) => c.build);
  const sandboxes = owned.filter((c) => !c.build);
  const buildImages = new Set(builds.map((c) => c.build!));
  // `times` prints the shell's own times, then its children's: "0m0.001s 0m0.002s\n1m2.5s 0m3.1s".
  const times = [...stderr.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)].pop();
  const processCpu = times ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]) : NaN;
  const records = existsSync(out)
    ? (await readFile(out, 'utf8'))
        .split('\n')
        .filter((l) => l.trim())
        .flatMap((l) => {
          const parsed = GoldTestsSchema.safeParse(JSON.parse(l));
          return parsed.success ? [parsed.data] : [];
        })
    : [];
  const exists = await Promise.all(
    [...buildImages].map((tag) =>
      docker
        .getImage(tag)
        .inspect()
        .then(() => true)
        .catch(() => false),
    ),
  );
  const sum = (cs: OwnedContainer[]) => cs.reduce((t, c) => t + (c.cpu ?? 0), 0);
  return {
    records,
    stagesDone: Math.max(stagesDone, records.length),
    exitCode: exitCode ?? -1,
    processCpu,
    containerCpu: sum(owned),
    buildCpu: sum(builds),
    goldCpu: sum(sandboxes),
    goldSandboxes: sandboxes.length,
    goldBrief: sandboxes.filter((c) => c.diedAt !== undefined && c.diedAt - c.startedAt < 1).length,
    goldUnread: sandboxes.filter((c) => c.cpu === undefined).length,
    imagesBuilt: [...buildImages].filter((_, i) => exists[i]),
    buildsFailed: [...buildImages].filter((_, i) => !exists[i]),
    wallSeconds: (Date.now() - started) / 1000,
    loadAverage: loads.reduce((a, b) => a + b, 0) / loads.length,
    tail: `${stdout.split('\n').slice(-5).join('\n')}\n${stderr.split('\n').slice(-8).join('\n')}`.trim(),
  };
}

/** The bytes an image's own top layer adds (Docker's image history), or 0 where it has none. */
export async function layerBytes(docker: Docker, image: string): Promise<number> {
  const history = await docker
    .getImage(image)
    .history()
    .catch(() => []);
  return (history as Array<{ Size: number }>)[0]?.Size ?? 0;
}

/**
 * Environment images a run on `repo` might find warm: the repository's own (both codes label them with
 * its name), and any other environment image of the same language. Environments are found by a key of
 * what they hold, which leaves the repository's name out, so an image another name left (a test's
 * generated repository, a profiling run under another name) with the same content would be taken.
 */
export async function envImages(
  docker: Docker,
  repo: string,
  language: string,
): Promise<Map<string, { id: string; created: number }>> {
  const images = await docker.listImages({ filters: { label: ['chainsmith.env.repo'] } });
  const found = new Map<string, { id: string; created: number }>();
  for (const i of images) {
    if (i.Labels?.['chainsmith.env.repo'] !== repo && manifestLanguage(i.Labels?.[MANIFEST_LABEL]) !== language)
      continue;
    for (const tag of i.RepoTags ?? []) if (tag !== '<none>:<none>') found.set(tag, { id: i.Id, created: i.Created });
  }
  return found;
}

/** The language an environment image's manifest label names, if it can be read. */
function manifestLanguage(label: string | undefined): string | undefined {
  try {
    return (JSON.parse(label ?? '') as { language?: string }).language;
  } catch {
    return undefined;
  }
}

/**
 * Several runs of one code as one (its repositories', or today's code started again after a chain it
 * stopped in): their records in order, their CPU, containers and wall time summed, the load averaged
 * over the wall time; the exit code the first non-zero one.
 */
export function mergeRuns(runs: ValidateRun[]): ValidateRun {
  const sum = (pick: (r: ValidateRun) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const wall = sum((r) => r.wallSeconds);
  return {
    records: runs.flatMap((r) => r.records),
    stagesDone: sum((r) => r.stagesDone),
    exitCode: runs.find((r) => r.exitCode !== 0)?.exitCode ?? 0,
    processCpu: sum((r) => r.processCpu),
    containerCpu: sum((r) => r.containerCpu),
    buildCpu: sum((r) => r.buildCpu),
    goldCpu: sum((r) => r.goldCpu),
    goldSandboxes: sum((r) => r.goldSandboxes),
    goldBrief: sum((r) => r.goldBrief),
    goldUnread: sum((r) => r.goldUnread),
    imagesBuilt: runs.flatMap((r) => r.imagesBuilt),
    buildsFailed: runs.flatMap((r) => r.buildsFailed),
    wallSeconds: wall,
    loadAverage: wall ? sum((r) => r.loadAverage * r.wallSeconds) / wall : 0,
    tail: runs
      .map((r) => r.tail)
      .filter(Boolean)
      .join('\n'),
  };
}

/** Removes those images, newest first (a seeded image before its seed); what is in use stays. Returns how many stayed. */
export async function removeEnvImages(docker: Docker, repo: string, language: string): Promise<number> {
  const images = [...(await envImages(docker, repo, language)).entries()].sort((a, b) => b[1].created - a[1].created);
  let kept = 0;
  for (const [tag] of images)
    await docker
      .getImage(tag)
      .remove()
      .catch(() => (kept += 1));
  return kept;
}

export const BASELINE_COMMIT = '194b24d';

/** Where today's code is built: `git archive` of BASELINE_COMMIT, this checkout's node_modules, compiled. */
export function baselineDir(work: string): string {
  return join(work, `baseline-${BASELINE_COMMIT}`);
}
