import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config';
import { generateDemoRepo } from '../demo/generate-repo';
import { InputError } from '../errors';
import { roundContainers } from '../stage/round-container';
import { buildDeps } from '../workers/deps';
import { createWorkers, runWorkers } from '../workers/worker';
import { writeChains } from '../mining/output/chains-file';
import { exportCommand } from './export';
import { historySummary } from './history';
import { reportCommand } from './report';
import { mineChains } from '../mining/output/mine-to-files';
import { checkModelEndpoint } from './preflight';
import { defaultPolicy, startChains } from '../batches/start';
import { connectClient, connectWorker, workflowUrl } from './temporal';
import { watchChains } from './watch';

/** The temporal CLI as the user can call it: provisioning may have put it in Go's bin directory. */
function temporalBinary(): string {
  const onPath = (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, 'temporal')));
  const goBin = join(process.env.GOPATH ?? join(homedir(), 'go'), 'bin', 'temporal');
  return !onPath && existsSync(goBin) ? goBin : 'temporal';
}

/** The whole method on a generated repository: mine, link, start, roll out, judge, export. */
export async function demoCommand(config: Config): Promise<number> {
  const say = (line: string) => console.log(line);
  const deps = buildDeps(config);
  await deps.docker.ping().catch((cause) => {
    throw new InputError(
      `no Docker engine is reachable (${cause.message}); run \`bash scripts/provision.sh\` or set DOCKER_HOST`,
    );
  });
  await deps.docker
    .getImage(deps.image)
    .inspect()
    .catch(() => {
      throw new InputError(`sandbox image ${deps.image} is missing; run \`bash scripts/provision.sh\` to build it`);
    });

  const demoDir = join(config.dataDir, 'demo');
  const repo = await generateDemoRepo(join(demoDir, 'tally'));
  say(`demo repository: ${repo.path} (HEAD ${repo.head.slice(0, 12)})`);
  const mined = await mineChains(repo.path, 'demo/tally');
  const chainsFile = join(demoDir, 'chains.jsonl');
  await writeChains(chainsFile, mined.chains);
  say(`mined ${mined.prs} PRs and ${mined.edges.length} links → ${mined.chains.length} chain(s) in ${chainsFile}`);
  for (const c of mined.chains) say(`  ${c.id}: ${c.prs.map((p) => `#${p.number} ${p.title}`).join('  →  ')}`);

  const policy = defaultPolicy(config);
  say(
    policy === 'model'
      ? `policy: model ${config.model.name} at ${config.model.baseUrl}`
      : 'policy: gold replay (no model endpoint configured; see README)',
  );
  if (policy === 'model') await checkModelEndpoint(config);
  const client = await connectClient(config);
  const workers = await createWorkers({
    connection: await connectWorker(config),
    namespace: config.temporal.namespace,
    deps,
  });
  const started = await startChains(client, config, mined.chains, { policy });
  for (const s of started) {
    say(`${s.existed ? 'attached to' : 'started'} workflow ${s.workflowId}`);
    say(`  Temporal UI: ${workflowUrl(config, s.workflowId)}`);
  }
  const watching = watchChains(started, say);
  await runWorkers(workers, watching);
  await deps.pool?.drain();
  const results = await watching;

  const leftovers = (
    await Promise.all(started.map((s) => roundContainers(deps.docker, { workflowId: s.workflowId })))
  ).flat();
  const accepted = results.filter((r) => r.status === 'accepted');
  say('');
  say(`accepted ${accepted.length} of ${results.length} chain(s); sandbox containers left behind: ${leftovers.length}`);
  for (const r of accepted) say(`dataset: ${r.datasetPath} (sample ${r.sampleId})`);
  // The last two steps of the method: the SFT export of accepted chains and its report.
  const exportDir = join(demoDir, 'export');
  say('');
  await exportCommand(config, { out: exportDir, query: `ChainRepo = "demo/tally"` }, (line) => say(`export: ${line}`));
  await reportCommand(config, { export: exportDir }, say);
  for (const s of started) say(`history of ${s.workflowId}: ${await historySummary(s.handle)}`);
  say(
    `the full history: ${temporalBinary()} workflow show --workflow-id ${started[0].workflowId} --address ${config.temporal.address}`,
  );
  return accepted.length === results.length && leftovers.length === 0 ? 0 : 1;
}
