import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Command, Option } from 'commander';
import { loadConfig, type Config } from '../config';
import { ChainsmithError, InputError } from '../errors';
import { buildDeps } from '../workers/deps';
import { createWorkers, runWorkers } from '../workers/worker';
import { readChains } from './chains-file';
import { demoCommand } from './demo';
import { mineCommand } from './mine';
import { checkModelEndpoint } from './preflight';
import { defaultPolicy, startChains } from './start';
import { statusCommand } from './status';
import { connectClient, connectWorker, workflowUrl } from './temporal';
import { watchChains } from './watch';

const program = new Command('chainsmith')
  .description('Turn real pull-request chains into long-horizon training data for coding agents.')
  .option('-c, --config <file>', 'config file (default: ./chainsmith.config.json if present)')
  .showHelpAfterError();

const config = (): Config => loadConfig({ file: program.opts().config });

program
  .command('demo')
  .description('generate a demo repository, mine its PR chain and run it end to end on Temporal and Docker')
  .action(async () => {
    process.exitCode = await demoCommand(config());
  });

program
  .command('mine')
  .description('mine PR chains from a local git clone into a JSONL file')
  .requiredOption('--repo <path>', 'path of a local clone')
  .requiredOption('--out <file>', 'where to write the chains (JSONL)')
  .option('--name <owner/name>', 'repository name recorded on each chain (default: the folder name)')
  .option('--max-length <n>', 'longest chain to keep', (v) => parsePositive('--max-length', v), 5)
  .action(async (opts) => mineCommand(opts.repo, opts));

program
  .command('start')
  .description('start one workflow per chain of a chains file (idempotent: a chain that ran is not started again)')
  .requiredOption('--chains <file>', 'chains file written by `chainsmith mine`')
  .addOption(new Option('--policy <policy>', 'agent policy (default: model if an endpoint is configured, else gold-replay)').choices(['model', 'gold-replay']))
  .option('--task-queue <name>', 'orchestration task queue')
  .option('--wait', 'wait for the chains to finish, showing progress')
  .action(async (opts) => {
    const cfg = config();
    const chains = await readChains(opts.chains);
    const policy = opts.policy ?? defaultPolicy(cfg);
    if (policy === 'model') await checkModelEndpoint(cfg);
    const client = await connectClient(cfg);
    const started = await startChains(client, cfg, chains, { policy, taskQueue: opts.taskQueue });
    for (const s of started) console.log(`${s.existed ? 'exists ' : 'started'} ${s.workflowId}  ${workflowUrl(cfg, s.workflowId)}`);
    if (opts.wait) await watchChains(started, console.log);
  });

program
  .command('worker')
  .description('run workers for the orchestration and sandbox task queues until interrupted')
  .option('--task-queue <name>', 'orchestration task queue')
  .option('--max-sandboxes <n>', 'concurrent rollouts on this host', (v) => parsePositive('--max-sandboxes', v), 4)
  .action(async (opts) => {
    const cfg = config();
    const workers = await createWorkers({
      connection: await connectWorker(cfg),
      namespace: cfg.temporal.namespace,
      deps: buildDeps(cfg),
      taskQueue: opts.taskQueue,
      maxSandboxes: opts.maxSandboxes,
    });
    console.log(`worker running against ${cfg.temporal.address}; Ctrl-C to stop`);
    await runWorkers(workers);
  });

program
  .command('status [workflowId]')
  .description('list chain workflows, or show one chain stage by stage')
  .action(async (workflowId) => statusCommand(await connectClient(config()), workflowId));

function parsePositive(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}

async function main(): Promise<void> {
  // The SDK's per-state INFO lines drown the progress a user is watching; warnings still show.
  Runtime.install({ logger: new DefaultLogger((process.env.CHAINSMITH_LOG_LEVEL as 'WARN') ?? 'WARN') });
  await program.parseAsync(process.argv);
}

main().catch((err) => {
  // Errors we raise on purpose explain themselves; anything else is a bug and keeps its stack.
  console.error(err instanceof ChainsmithError ? `error: ${err.message}` : err);
  process.exit(err instanceof InputError ? 2 : 1);
});
