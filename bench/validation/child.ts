import Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { GoldTestsSchema, type GoldTests } from '../../src/schemas';
import { OWNER_LABEL } from '../../src/container/orphans';
import { BUILD_LABEL } from '../../src/environments/builder';
import { run } from '../../src/process/run';

/** Where cgroup v1 (cgroupfs driver) keeps a container's CPU time, in nanoseconds; under v2, where the unified hierarchy does. */
const CGROUP_USAGE = [
  (id: string) => `/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`,
  (id: string) => `/sys/fs/cgroup/docker/${id}/cpu.stat`,
];

/** One `chainsmith validate` run, as a child process, and what it cost. */
export interface ValidateRun {
  records: GoldTests[];
  /** Stages it reported done on stdout (`[k/N]` lines): where it stopped, for a run that did not finish. */
  stagesDone: number;
  exitCode: number;
  /** CPU seconds of the child and every process it waited for (user + system, from bash's `times`). */
  processCpu: number;
  /** CPU seconds of the containers it owned (build and gold sandboxes), from their cgroups, sampled twice a second. */
  containerCpu: number;
  /** Of containerCpu: environment builds (containers labelled with the image they build), gold sandboxes (the rest). */
  buildCpu: number;
  goldCpu: number;
  /** Gold sandboxes started: at most one per stage whose tests ran (a stage validated before in the run is not). */
  goldSandboxes: number;
  /**
   * Environment images its own build containers built (their label names the image), counted from
   * those containers rather than from the engine's images before and after: an image another process
   * builds meanwhile (a test on the same repository) is not counted, nor one found already there.
   */
  imagesBuilt: string[];
  /** Builds it started whose image is not on the engine after the run (failed, timed out, or cut short). */
  buildsFailed: string[];
  wallSeconds: number;
  /** The last lines of its output, for a run that failed. */
  tail: string;
}

/**
 * Runs `node <cli> validate --chains FILE --out OUT` with CHAINSMITH_HOME set to `home` (a fresh data
 * directory: no cached gold validation or fetch). The containers it starts carry its process id in
 * their owner label; their CPU is read from their cgroups while they live (the last half second of each
 * is missed, for both codes alike), and the Docker daemon's own work is not counted.
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
  const usage = new Map<string, number>();
  /** Build containers by id: their label names the image they build (sandboxes from an environment image inherit it empty). */
  const builds = new Set<string>();
  const buildImages = new Set<string>();
  const sample = async () => {
    if (!pid) return;
    const owned = await docker
      .listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${hostname()}:${pid}`] } })
      .catch(() => []);
    for (const c of owned) {
      if (c.Labels?.[BUILD_LABEL]) {
        builds.add(c.Id);
        buildImages.add(c.Labels[BUILD_LABEL]);
      }
      const seconds = await containerCpu(c.Id);
      if (seconds !== undefined) usage.set(c.Id, Math.max(usage.get(c.Id) ?? 0, seconds));
    }
  };
  const timer = setInterval(() => void sample(), 500);
  const { exitCode, stdout, stderr } = await running;
  clearInterval(timer);
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
  const sum = (ids: string[]) => ids.reduce((a, id) => a + (usage.get(id) ?? 0), 0);
  const containers = [...usage.keys()];
  return {
    records,
    stagesDone: Math.max(stagesDone, records.length),
    exitCode: exitCode ?? -1,
    processCpu,
    containerCpu: sum(containers),
    buildCpu: sum(containers.filter((id) => builds.has(id))),
    goldCpu: sum(containers.filter((id) => !builds.has(id))),
    goldSandboxes: containers.filter((id) => !builds.has(id)).length,
    imagesBuilt: [...buildImages].filter((_, i) => exists[i]),
    buildsFailed: [...buildImages].filter((_, i) => !exists[i]),
    wallSeconds: (Date.now() - started) / 1000,
    tail: `${stdout.split('\n').slice(-5).join('\n')}\n${stderr.split('\n').slice(-8).join('\n')}`.trim(),
  };
}

async function containerCpu(id: string): Promise<number | undefined> {
  for (const path of CGROUP_USAGE) {
    const text = await readFile(path(id), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const v2 = /usage_usec (\d+)/.exec(text);
    return v2 ? Number(v2[1]) / 1e6 : Number(text.trim()) / 1e9;
  }
  return undefined;
}

/** The bytes an image's own top layer adds (Docker's image history), or 0 where it has none. */
export async function layerBytes(docker: Docker, image: string): Promise<number> {
  const history = await docker
    .getImage(image)
    .history()
    .catch(() => []);
  return (history as Array<{ Size: number }>)[0]?.Size ?? 0;
}

/** Environment images of a repository on the engine (both codes label them with the repository's name). */
export async function envImages(docker: Docker, repo: string): Promise<Map<string, { id: string; created: number }>> {
  const images = await docker.listImages({ filters: { label: [`chainsmith.env.repo=${repo}`] } });
  const found = new Map<string, { id: string; created: number }>();
  for (const i of images)
    for (const tag of i.RepoTags ?? []) if (tag !== '<none>:<none>') found.set(tag, { id: i.Id, created: i.Created });
  return found;
}

/** Removes a repository's environment images, newest first (a seeded image before its seed); what is in use stays. Returns how many stayed. */
export async function removeEnvImages(docker: Docker, repo: string): Promise<number> {
  const images = [...(await envImages(docker, repo)).entries()].sort((a, b) => b[1].created - a[1].created);
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
