import Docker from 'dockerode';
import { access, constants, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import { environmentsFrom, sandboxSpecFrom } from '../environments/from-config';
import { InputError } from '../errors';
import { stageCheck } from '../judge/gold-validation';
import { describeStage, formatGoldYield, goldYield, validateStages } from '../judge/gold-yield';
import { baseImageTag } from '../environments/images';
import { readChains } from '../mining/output/chains-file';

/**
 * `chainsmith validate`: gold validation of every stage of a chains file on this host's Docker engine
 * (the base checks out, the earlier stages carry onto it, the gold patch applies, the PR's tests fail
 * before and pass after), then the yield per repository and language and the reason for every stage
 * that nothing could judge. Results are cached in the artifact store, so `start` reuses them.
 */
export async function validateCommand(config: Config, opts: { chains: string; out?: string }): Promise<void> {
  const chains = await readChains(opts.chains);
  if (opts.out) await checkWritable(opts.out);
  const docker = new Docker();
  await docker.ping().catch((cause) => {
    throw new InputError(`validate needs a Docker engine on this host and none answers (${(cause as Error).message}); run scripts/provision.sh docker`, { cause });
  });
  const deps = {
    docker,
    store: ArtifactStore.fromConfig(config),
    sandbox: sandboxSpecFrom(config),
    environments: environmentsFrom(config, docker, config.sandbox.image ?? baseImageTag()),
    goldRuns: config.environments.goldRuns,
  };
  const total = chains.reduce((n, c) => n + c.prs.length, 0);
  console.log(`validating ${total} stage(s) of ${chains.length} chain(s); a repository's first stage builds its environment`);
  const records = await validateStages(deps, chains, (record, done) => console.log(`[${done}/${total}] ${describeStage(record)}`));
  if (opts.out) await writeFile(opts.out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(`\n${formatGoldYield(goldYield(records))}`);
  const judgeModel = !!config.model.baseUrl;
  const unjudgeable = records.map((r) => ({ r, check: stageCheck(r, judgeModel) })).filter(({ check }) => !check.judgeable);
  if (unjudgeable.length) {
    console.log(`\n${unjudgeable.length} stage(s) nothing can judge${judgeModel ? '' : ' (no judge model is configured)'}; \`start\` cuts their chains before them:`);
    for (const { r, check } of unjudgeable) console.log(`  ${r.repo} PR #${r.prNumber}: ${check.reason?.split('\n')[0]}`);
  }
}

/** Before any work: a file that cannot be written would lose it all at the end. */
async function checkWritable(path: string): Promise<void> {
  const dir = dirname(resolve(path));
  await access(dir, constants.W_OK).catch(() => {
    throw new InputError(`cannot write ${path}: the folder ${dir} does not exist or is not writable`);
  });
}
