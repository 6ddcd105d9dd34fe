import Docker from 'dockerode';
import { performance } from 'node:perf_hooks';
import { ArtifactStore } from '../src/artifacts/store';
import { loadConfig } from '../src/config';
import { environmentsFrom, sandboxSpecFrom } from '../src/environments/from-config';
import { baseImageTag } from '../src/environments/images';
import { goldTestsFor } from '../src/judge/gold-validation';
import { readLocalPullRequests } from '../src/mining/landings/local-git';
import { withLocalPatches } from '../src/mining/landings/local-patches';
import type { Chain, GoldTests, PullRequest } from '../src/schemas';
import { bundlePath, cloneBundle, SHARED_REPOS } from '../test/support/real-repos';
import { spreadPrs } from '../test/support/spread-prs';
import type { Figure } from './figure';
import { BuildContainerWatch, isOffline, type BuildContainer } from './support/build-containers';

/** PRs per repository; CHAINSMITH_BENCH_PRS lowers it for a quick look (the goal is stated for 20). */
const PRS = Number(process.env.CHAINSMITH_BENCH_PRS ?? 20);

/** The bundled real repositories (../shared/repos): one per language of the paper's data. */
const REPOS = {
  'pallets/jinja': 'python',
  'serde-rs/json': 'rust',
  'spf13/cobra': 'go',
  'jhy/jsoup': 'java',
  'DaveGamble/cJSON': 'c',
};

/** CHAINSMITH_BENCH_REPOS=jinja,cJSON measures only those (names matched case-insensitively). */
const ONLY = (process.env.CHAINSMITH_BENCH_REPOS ?? '').toLowerCase().split(',').filter(Boolean);

const say = (line: string) => console.error(`[environments] ${line}`);
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

interface PrResult {
  language: string;
  /** The environment (its image tag: two PRs with one tag share one environment), built or failed with its reason. */
  env: { image: string; buildSeconds: number; mb: number } | { image: string; failure: string };
  gold?: GoldTests;
  /** Gold validation threw rather than returned a status: its reason. */
  goldFailure?: string;
  readySeconds: number;
}

const reason = (err: unknown) =>
  (err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)).split('\n')[0].slice(0, 200);

/**
 * Environments and gold validation on the five bundled real repositories, all in this one run: for
 * each, PRS merged PRs spread evenly over its last five years that change code and a test file, each
 * validated as a one-stage chain (its environment built or reused, its tests run before and after the
 * gold change). Then every environment is asked for again by a fresh builder, as a second worker
 * would: that time is the reuse cost. Environments and gold validations persist in the data directory
 * and Docker, so a second bench run reuses the first's (and then runs no build to read a network from).
 * Any error is that PR's (or repository's) failure, with its reason: none stops the bench.
 */
export async function run(): Promise<Figure[]> {
  const config = loadConfig();
  const docker = new Docker();
  const store = ArtifactStore.fromConfig(config);
  const deps = {
    docker,
    store,
    sandbox: sandboxSpecFrom(config),
    environments: environmentsFrom(config, docker, baseImageTag(), say),
  };
  const results: PrResult[] = [];
  const chains: Array<{ chain: Chain; result: PrResult }> = [];
  // The network each build container really had, from Docker, not from environments.buildNetwork.
  const builds = new BuildContainerWatch(docker);
  await builds.start();
  for (const [name, language] of Object.entries(REPOS)) {
    if (ONLY.length && !ONLY.some((o) => name.toLowerCase().includes(o))) continue;
    const bundle = name.replace('/', '+');
    if (!bundlePath(bundle)) {
      say(`${name}: skipped, no ${bundle}.bundle in ${SHARED_REPOS}`);
      continue;
    }
    builds.tag = language;
    let prs: PullRequest[];
    let repo: { path: string };
    try {
      repo = { path: await cloneBundle(bundle) };
      const mined = await readLocalPullRequests(repo.path, {});
      prs = await withLocalPatches(repo.path, spreadPrs(mined.prs, PRS));
    } catch (err) {
      // The repository's one environment, unknown, counts as failed.
      results.push({ language, env: { image: `${name} (not mined)`, failure: reason(err) }, readySeconds: 0 });
      say(`${name}: could not be cloned or mined: ${reason(err)}`);
      continue;
    }
    say(`${name}: ${prs.length} PRs (${prs.map((p) => `#${p.number}`).join(' ')})`);
    for (const pr of prs) {
      const chain: Chain = { id: `${name}#${pr.number}`, repo: { name, path: repo.path }, prs: [pr], edges: [] };
      const started = performance.now();
      const result: PrResult = { language, env: { image: '', failure: '' }, readySeconds: 0 };
      try {
        const env = await deps.environments.forStage(chain, 0);
        const size = (await docker.getImage(env.image).inspect()).Size;
        result.env = { image: env.image, buildSeconds: env.manifest.buildSeconds, mb: size / 1e6 };
        result.readySeconds = (performance.now() - started) / 1000;
      } catch (err) {
        // Where the recipe cannot even be resolved, the PR's base stands for its environment.
        const image = await deps.environments.imageFor(chain, 0).catch(() => `${name}@${pr.baseSha}`);
        result.env = { image, failure: reason(err) };
      }
      if (!('failure' in result.env)) {
        chains.push({ chain, result });
        try {
          result.gold = await goldTestsFor(deps, chain, 0);
        } catch (err) {
          result.goldFailure = reason(err);
        }
      }
      results.push(result);
      const g = result.gold;
      say(
        `${name} #${pr.number}: ${
          'failure' in result.env
            ? `environment failed: ${result.env.failure}`
            : result.goldFailure
              ? `gold validation failed: ${result.goldFailure}`
              : `${g?.status} (${g?.failToPass.length ?? 0} FAIL_TO_PASS${g?.problem ? `; ${g.problem.split('\n')[0]}` : ''})`
        }`,
      );
    }
  }
  await builds.stop();
  for (const b of builds.seen)
    say(
      `build container ${b.id.slice(0, 12)} (${b.tag}) for ${b.image}: network mode ${b.networkMode}, networks [${b.networks.join(', ')}]`,
    );
  // A second builder (a new worker) finds every environment already built.
  const again = environmentsFrom(config, docker, baseImageTag(), say);
  const reuse: Record<string, number[]> = {};
  for (const { chain, result } of chains) {
    const started = performance.now();
    try {
      await again.forStage(chain, 0);
      (reuse[result.language] ??= []).push((performance.now() - started) / 1000);
    } catch (err) {
      say(`${chain.id}: a second builder could not find its environment: ${reason(err)}`);
    }
  }
  const languages = [...new Set(results.map((r) => r.language))];
  return [
    ...figures(results, reuse, builds.seen, ''),
    ...languages.flatMap((l) =>
      figures(
        results.filter((r) => r.language === l),
        { [l]: reuse[l] ?? [] },
        builds.seen.filter((b) => b.tag === l),
        `_${l}`,
      ),
    ),
  ];
}

function figures(
  results: PrResult[],
  reuse: Record<string, number[]>,
  builds: BuildContainer[],
  suffix: string,
): Figure[] {
  // Each distinct environment once: built where any PR got it built, else failed with its first reason.
  const built = new Map<string, { buildSeconds: number; mb: number }>();
  const failed = new Map<string, string>();
  for (const r of results) {
    if ('failure' in r.env) {
      if (!failed.has(r.env.image)) failed.set(r.env.image, r.env.failure);
    } else built.set(r.env.image, r.env);
  }
  for (const image of built.keys()) failed.delete(image);
  const envs = [...built.values()];
  const distinct = envs.length + failed.size;
  const reasons = new Map<string, number>();
  for (const why of failed.values()) reasons.set(why, (reasons.get(why) ?? 0) + 1);
  const why = [...reasons].map(([r, n]) => `${n} x ${r}`).join('; ');
  const verified = results.filter((r) => (r.gold?.failToPass.length ?? 0) > 0).length;
  const goldFailed = results.filter((r) => r.goldFailure).length;
  const where = suffix
    ? ` (${suffix.slice(1)})`
    : ` (all languages measured: ${[...new Set(results.map((r) => r.language))].join(', ')})`;
  const offline = builds.filter(isOffline).length;
  return [
    {
      measure: `env_build_success${suffix}`,
      value: round(distinct ? envs.length / distinct : 0, 3),
      unit: 'ratio',
      goal: `>= 0.9 of distinct environments build${where}; ${envs.length} of ${distinct}${why ? `; failed: ${why}` : ''}`,
    },
    {
      measure: `validation_yield${suffix}`,
      value: round(results.length ? verified / results.length : 0, 3),
      unit: 'ratio',
      goal: `>= 0.7 of PRs with >= 1 FAIL_TO_PASS test${where}; ${verified} of ${results.length}${goldFailed ? `; ${goldFailed} threw in gold validation` : ''}`,
    },
    {
      measure: `env_build_seconds_median${suffix}`,
      value: round(median(envs.map((e) => e.buildSeconds)), 1),
      unit: 's',
      goal: `context: median build of the distinct environments, dependency fetch included${where}`,
    },
    {
      measure: `env_image_mb_median${suffix}`,
      value: round(median(envs.map((e) => e.mb)), 0),
      unit: 'MB',
      goal: `context: median environment image size, toolchain layers included${where}`,
    },
    {
      measure: `env_reuse_seconds_median${suffix}`,
      value: round(median(Object.values(reuse).flat()), 3),
      unit: 's',
      goal: `near 0: a second builder asking for a built environment${where}`,
    },
    {
      measure: `offline_build_share${suffix}`,
      // No build ran (every environment was built by an earlier run): nothing to read, so no value (null).
      value: builds.length ? round(offline / builds.length, 3) : NaN,
      unit: 'ratio',
      goal: `= 1: build containers Docker reports with network mode none and no other network${where}; ${offline} of ${builds.length} this run`,
    },
  ];
}
