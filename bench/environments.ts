import Docker from 'dockerode';
import { performance } from 'node:perf_hooks';
import { ArtifactStore } from '../src/artifacts/store';
import { loadConfig } from '../src/config';
import { environmentsFrom, sandboxSpecFrom } from '../src/environments/from-config';
import { baseImageTag } from '../src/environments/images';
import { StageError } from '../src/errors';
import { goldTestsFor } from '../src/judge/gold-validation';
import { readLocalPullRequests } from '../src/mining/local-git';
import { withLocalPatches } from '../src/mining/local-patches';
import type { Chain, GoldTests } from '../src/schemas';
import { bundlePath, cloneBundle, SHARED_REPOS } from '../test/support/real-repos';
import { spreadPrs } from '../test/support/spread-prs';
import type { Figure } from './figure';

/** PRs per repository; CHAINSMITH_BENCH_PRS lowers it for a quick look (the goal is stated for 20). */
const PRS = Number(process.env.CHAINSMITH_BENCH_PRS ?? 20);

/** The bundled real repositories (../shared/repos): one per language of the paper's data. */
const REPOS = { 'pallets/jinja': 'python', 'serde-rs/json': 'rust', 'spf13/cobra': 'go', 'jhy/jsoup': 'java', 'DaveGamble/cJSON': 'c' };

/** CHAINSMITH_BENCH_REPOS=jinja,cJSON measures only those (names matched case-insensitively). */
const ONLY = (process.env.CHAINSMITH_BENCH_REPOS ?? '').toLowerCase().split(',').filter(Boolean);

const say = (line: string) => console.error(`[environments] ${line}`);
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : 0);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

interface PrResult {
  language: string;
  /** The environment image, or the build's failure (one per distinct failing environment). */
  env: { image: string; buildSeconds: number; mb: number; network: string } | { failure: string };
  gold?: GoldTests;
  readySeconds: number;
}

/**
 * Environments and gold validation on the five bundled real repositories, all in this one run: for
 * each, PRS merged PRs spread evenly over its last five years that change code and a test file, each
 * validated as a one-stage chain (its environment built or reused, its tests run before and after the
 * gold change). Then every environment is asked for again by a fresh builder, as a second worker
 * would: that time is the reuse cost. Environments and gold validations persist in the data directory
 * and Docker, so a second bench run reuses the first's.
 */
export async function run(): Promise<Figure[]> {
  const config = loadConfig();
  const docker = new Docker();
  const store = ArtifactStore.fromConfig(config);
  const deps = { docker, store, sandbox: sandboxSpecFrom(config), environments: environmentsFrom(config, docker, baseImageTag(), say) };
  const results: PrResult[] = [];
  const chains: Chain[] = [];
  for (const [name, language] of Object.entries(REPOS)) {
    if (ONLY.length && !ONLY.some((o) => name.toLowerCase().includes(o))) continue;
    const bundle = name.replace('/', '+');
    if (!bundlePath(bundle)) {
      say(`${name}: skipped, no ${bundle}.bundle in ${SHARED_REPOS}`);
      continue;
    }
    const repo = { path: await cloneBundle(bundle) };
    const mined = await readLocalPullRequests(repo.path, {});
    const prs = await withLocalPatches(repo.path, spreadPrs(mined.prs, PRS));
    say(`${name}: ${prs.length} PRs (${prs.map((p) => `#${p.number}`).join(' ')})`);
    for (const pr of prs) {
      const chain: Chain = { id: `${name}#${pr.number}`, repo: { name, path: repo.path }, prs: [pr], edges: [] };
      chains.push(chain);
      const started = performance.now();
      const result: PrResult = { language, env: { failure: '' }, readySeconds: 0 };
      try {
        const env = await deps.environments.forStage(chain, 0);
        const size = (await docker.getImage(env.image).inspect()).Size;
        result.env = { image: env.image, buildSeconds: env.manifest.buildSeconds, mb: size / 1e6, network: config.environments.buildNetwork };
        result.readySeconds = (performance.now() - started) / 1000;
        result.gold = await goldTestsFor(deps, chain, 0);
      } catch (err) {
        if (!(err instanceof StageError)) throw err;
        result.env = { failure: err.message.split('\n')[0] };
      }
      results.push(result);
      const g = result.gold;
      say(`${name} #${pr.number}: ${'failure' in result.env ? `environment failed: ${result.env.failure}` : `${g?.status} (${g?.failToPass.length ?? 0} FAIL_TO_PASS${g?.problem ? `; ${g.problem.split('\n')[0]}` : ''})`}`);
    }
  }
  // A second builder (a new worker) finds every environment already built.
  const again = environmentsFrom(config, docker, baseImageTag(), say);
  const reuse: Record<string, number[]> = {};
  for (const [i, chain] of chains.entries()) {
    if ('failure' in results[i].env) continue;
    const started = performance.now();
    await again.forStage(chain, 0);
    (reuse[results[i].language] ??= []).push((performance.now() - started) / 1000);
  }
  const languages = [...new Set(results.map((r) => r.language))];
  return [...figures(results, reuse, ''), ...languages.flatMap((l) => figures(results.filter((r) => r.language === l), { [l]: reuse[l] ?? [] }, `_${l}`))];
}

function figures(results: PrResult[], reuse: Record<string, number[]>, suffix: string): Figure[] {
  const built = new Map<string, { buildSeconds: number; mb: number; network: string }>();
  const failed = new Set<string>();
  for (const r of results) {
    if ('failure' in r.env) failed.add(r.env.failure);
    else built.set(r.env.image, r.env);
  }
  const envs = [...built.values()];
  const distinct = envs.length + failed.size;
  const verified = results.filter((r) => (r.gold?.failToPass.length ?? 0) > 0).length;
  const where = suffix ? ` (${suffix.slice(1)})` : ' (all five languages)';
  return [
    { measure: `env_build_success${suffix}`, value: round(distinct ? envs.length / distinct : 0, 3), unit: 'ratio', goal: `>= 0.9 of distinct environments build${where}; ${envs.length} of ${distinct}` },
    { measure: `validation_yield${suffix}`, value: round(results.length ? verified / results.length : 0, 3), unit: 'ratio', goal: `>= 0.7 of PRs with >= 1 FAIL_TO_PASS test${where}; ${verified} of ${results.length}` },
    { measure: `env_build_seconds_median${suffix}`, value: round(median(envs.map((e) => e.buildSeconds)), 1), unit: 's', goal: `context: median build of the distinct environments, dependency fetch included${where}` },
    { measure: `env_image_mb_median${suffix}`, value: round(median(envs.map((e) => e.mb)), 0), unit: 'MB', goal: `context: median environment image size, toolchain layers included${where}` },
    { measure: `env_reuse_seconds_median${suffix}`, value: round(median(Object.values(reuse).flat()), 3), unit: 's', goal: `near 0: a second builder asking for a built environment${where}` },
    { measure: `offline_build_share${suffix}`, value: round(envs.length ? envs.filter((e) => e.network === 'none').length / envs.length : 0, 3), unit: 'ratio', goal: `= 1: builds that ran with network mode none${where}` },
  ];
}
