import Docker from 'dockerode';
import { access, constants } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import { sandboxSpecFrom } from '../environments/from-config';
import { InputError } from '../errors';
import { formatFunnel, funnel } from '../judge/funnel';
import { formatFlakyRates } from '../judge/gold-stability';
import { stageCheck } from '../judge/gold-validation';
import { describeStage, validateStages } from '../judge/gold-yield';
import { baseImageTag } from '../environments/images';
import { readChains } from '../mining/output/chains-file';
import { StageLog } from './stage-log';
import { ModelClient } from '../model/client';
import { retryPolicyFrom } from '../model/retry';
import { Redactor } from '../redact';
import { setupFromConfig } from '../setup-agent/from-config';
import { stageCheckpoint } from '../setup-agent/progress';
import { describeSetup } from '../setup-agent/tally';

/**
 * `chainsmith validate`: gold validation of every stage of a chains file on this host's Docker engine
 * (the base checks out, the earlier stages carry onto it, the gold patch applies, the PR's tests fail
 * before and pass after), then the funnel per repository and language and the reason for every stage
 * that nothing could judge. A stage that fails is recorded with its reason and the run goes on; only
 * Docker or the artifact store going away stops it. Results are cached in the artifact store, so
 * `start` reuses them; with --out each stage is written as it finishes, and a rerun resumes from it.
 */
export async function validateCommand(config: Config, opts: { chains: string; out?: string }): Promise<void> {
  const chains = await readChains(opts.chains);
  if (opts.out) await checkWritable(opts.out);
  const docker = new Docker();
  await docker.ping().catch((cause) => {
    throw new InputError(
      `validate needs a Docker engine on this host and none answers (${(cause as Error).message}); run scripts/provision.sh docker`,
      { cause },
    );
  });
  const store = ArtifactStore.fromConfig(config);
  const { model } = config;
  const client = model.baseUrl
    ? new ModelClient({
        baseUrl: model.baseUrl,
        apiKey: model.apiKey,
        timeoutMs: model.timeoutMs,
        retry: retryPolicyFrom(model),
        redactor: Redactor.forWorker(process.env, [model.apiKey]),
      })
    : undefined;
  const setup = setupFromConfig(config, {
    docker,
    store,
    baseImage: config.sandbox.image ?? baseImageTag(),
    model: client,
    log: (line) => console.log(line),
  });
  const deps = {
    docker,
    store,
    sandbox: sandboxSpecFrom(config),
    environments: setup.environments,
    goldRuns: config.environments.goldRuns,
  };
  const log = opts.out ? await StageLog.open(opts.out) : undefined;
  const total = chains.reduce((n, c) => n + c.prs.length, 0);
  const resumed = log
    ? chains.reduce((n, c) => n + c.prs.filter((_, stage) => log.known({ chainId: c.id, stage }, c)).length, 0)
    : 0;
  console.log(
    `validating ${total} stage(s) of ${chains.length} chain(s); a repository's first stage builds its environment`,
  );
  if (resumed) console.log(`resuming: ${resumed} of them are in ${opts.out} already and are not validated again`);
  const started = Date.now();
  let last = started;
  let fresh = 0;
  const records = await validateStages(
    deps,
    chains,
    async (record, done, _, place) => {
      const now = Date.now();
      if (!place.known) fresh += 1;
      // From the stages validated in this run: what the rest may take.
      const left = fresh && done < total ? `, about ${seconds(((now - started) / fresh) * (total - done))} left` : '';
      const took = place.known ? ` (in ${opts.out} already)` : ` · ${seconds(now - last)}${left}`;
      last = now;
      // On disk before it is shown: a run stopped after a stage's line has that stage in --out.
      if (log && !place.known) await log.append(place, record);
      const [first, ...reason] = describeStage(record).split('\n');
      console.log([`[${done}/${total}] ${first}${took}`, ...reason].join('\n'));
    },
    {
      known: log ? (place, chain) => log.known(place, chain) : undefined,
      // The agent's progress on a stage is kept until it is done with it: run again after a crash, it goes on.
      goldTests: (chain, stage) =>
        setup.agent.goldTestsResumable(chain, stage, stageCheckpoint(store, chain.id, stage)),
    },
  )
    .catch((err) => {
      console.log(`\nvalidation stopped: ${(err as Error).message}`);
      console.log(
        opts.out
          ? `the stages done are in ${opts.out}; the same command resumes after them`
          : 'the same command resumes: finished stages come from the artifact store',
      );
      throw err;
    })
    .finally(() => log?.close());
  console.log(`\n${formatFunnel(funnel(chains, records))}`);
  for (const line of describeSetup(setup.agent.tallies.values(), model.name)) console.log(line);
  console.log(`\n${formatFlakyRates(records)}`);
  const built = deps.environments.built;
  const mb = built.reduce((n, b) => n + b.layerBytes, 0) / 1e6;
  console.log(
    `environments: ${built.length} built for ${total - resumed} stage(s) validated now${built.length ? `, adding ${mb.toFixed(0)} MB of image layers (${(mb / built.length).toFixed(0)} MB each)` : ''}`,
  );
  const judgeModel = !!config.model.baseUrl;
  const unjudgeable = records
    .map((r) => ({ r, check: stageCheck(r, judgeModel) }))
    .filter(({ check }) => !check.judgeable);
  if (unjudgeable.length) {
    console.log(
      `\n${unjudgeable.length} stage(s) nothing can judge${judgeModel ? '' : ' (no judge model is configured)'}; \`start\` cuts their chains before them:`,
    );
    for (const { r, check } of unjudgeable)
      console.log(`  ${r.repo} PR #${r.prNumber}: ${check.reason?.split('\n')[0]}`);
  }
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${(s / 3600).toFixed(1)}h`;
}

/** Before any work: a file that cannot be written would lose it all. */
async function checkWritable(path: string): Promise<void> {
  const dir = dirname(resolve(path));
  await access(dir, constants.W_OK).catch(() => {
    throw new InputError(`cannot write ${path}: the folder ${dir} does not exist or is not writable`);
  });
}
