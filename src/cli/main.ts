import { Command, CommanderError, Option } from 'commander';
import { loadConfig, type Config } from '../config';
import { parseDateOption } from '../date-window';
import { ChainsmithError, InputError } from '../errors';
import { DEFAULT_CHAINS_PER_PR, DEFAULT_MAX_LENGTH, DEFAULT_MIN_CONFIDENCE } from '../mining/chains/chains';
import { DEFAULT_MAX_CHANGED_LINES } from '../mining/chains/filters';
import { DEFAULT_WINDOW_DAYS } from '../mining/links/code-history';
import { SCHEDULE_RUN_ATTEMPTS } from '../retry-budget';
import { endChildrenOnSignals } from '../process/end-on-signals';
import { EXIT_CODES_HELP, exitCodeFor } from './exit-codes';
import { parseCount, parseEvery, parseFraction, parsePositive, parseRepoLabel, parseStrength } from './option-parsers';

// Each command loads its modules when it runs: `--help`, a bad flag or `mine` need neither the Temporal
// worker's native runtime nor Docker's or S3's clients, which take most of a second to load.

const program = new Command('chainsmith')
  .description('Turn real pull-request chains into long-horizon training data for coding agents.')
  .option('-c, --config <file>', 'config file (default: ./chainsmith.config.json if present)')
  // Commander's own errors (an unknown option, a missing argument) end as ours do: one `error:` line and
  // exit 2 (main below), not its message and the whole help with exit 1. Subcommands copy these settings.
  .exitOverride()
  .configureOutput({ writeErr: () => undefined, outputError: () => undefined })
  .addHelpText('after', EXIT_CODES_HELP);

const DATE_FORMS = ': a day (2024-06-01, midnight UTC) or a time with its zone';

/** The options that decide which links join PRs into chains: `mine` and a schedule's mines take the same. */
function withLinkOptions(command: Command): Command {
  return command
    .option(
      '--min-confidence <x>',
      `weakest link that joins PRs (default ${DEFAULT_MIN_CONFIDENCE}; plain mentions are 0.5)`,
      (v) => parseFraction('--min-confidence', v),
    )
    .option(
      '--min-strength <strength>',
      'weakest link that joins PRs: strong (fixes, reverts, restores, changes or extends what the earlier PR added; the default) or weak (also deprecate → remove, typo, test, one-line or message follow-ups)',
      parseStrength,
    )
    .option('--require-tests', 'only PRs that change a test become stages: chains are cut to their tested PRs')
    .option(
      '--blame-days <n>',
      `code-history links: only lines another PR wrote within this many days count (0: off; default ${DEFAULT_WINDOW_DAYS})`,
      (v) => parseCount('--blame-days', v),
    );
}

const config = (): Config => loadConfig({ file: program.opts().config });

program
  .command('demo')
  .description('generate a demo repository, mine its PR chain and run it end to end on Temporal and Docker')
  .action(async () => {
    quietSdkLogs(await import('@temporalio/worker'));
    const { demoCommand } = await import('./demo');
    process.exitCode = await demoCommand(config());
  });

const mine = program
  .command('mine')
  .description(
    'mine merged PRs and their dependency chains, from a local clone or the GitHub API, into JSONL files; a rerun into the same --out adds only what is new since the last (its cursor is kept beside the chains)',
  )
  .option('--repo <path>', 'a local clone: PRs from its merge and squash commits (and refs/pull/N/head where fetched)')
  .option(
    '--github <owner/name>',
    'a GitHub repository, through the API (token from GITHUB_TOKEN; API URL from CHAINSMITH_GITHUB_URL)',
  )
  .requiredOption('--out <file>', 'where to write the chains (JSONL); PR records and a summary go beside it')
  .option(
    '--name <owner/name>',
    'repository name recorded on each chain (default: the folder name, or --github)',
    parseRepoLabel,
  )
  .option('--branch <name>', "branch whose PRs to mine (default: the clone's HEAD, or the repository's default branch)")
  .option('--clone <path>', 'with --github: a local clone to take patches from and to record as where chains run')
  .option('--github-url <url>', 'with --github: API base URL, e.g. of GitHub Enterprise')
  .option('--cache-dir <dir>', 'with --github: answer cache that makes reruns resume (default: <dataDir>/cache/github)')
  .option('--refresh', 'with --github: revalidate cached PR listings now (unchanged pages cost no rate limit)')
  .option(
    '--max-length <n>',
    'longest chain; longer runs become several chains',
    (v) => parsePositive('--max-length', v),
    DEFAULT_MAX_LENGTH,
  )
  .option('--max-chains-per-pr <n>', `how many chains one PR may join (default ${DEFAULT_CHAINS_PER_PR})`, (v) =>
    parsePositive('--max-chains-per-pr', v),
  );

withLinkOptions(mine)
  .option(
    '--max-changed-lines <n>',
    'PRs changing more lines are left out',
    (v) => parsePositive('--max-changed-lines', v),
    DEFAULT_MAX_CHANGED_LINES,
  )
  .option('--keep-bots', 'keep PRs opened by bots')
  .option('--keep-no-code', 'keep PRs that change only docs and config')
  .option('--shared-files', 'also link PRs that change the same code files (weak edges)')
  .option(
    '--merged-after <date>',
    `only chains whose every PR was merged at or after DATE (inclusive)${DATE_FORMS}`,
    (v) => parseDateOption('--merged-after', v),
  )
  .option(
    '--merged-before <date>',
    `only chains whose every PR was merged before DATE (exclusive)${DATE_FORMS}; PRs outside the window still link the others`,
    (v) => parseDateOption('--merged-before', v),
  )
  .option(
    '--fresh',
    'ignore the cursor of an earlier mine into --out and mine everything again (needed to change the options of a mine)',
  )
  .option(
    '--judge-links',
    'ask the configured model about each code-history or weak link that could join a chain: strong or weak sets its strength, none drops it (verdicts cached under <dataDir>/cache/link-judge). With no model configured the mine goes on unjudged, with a note: the same command serves hosts with and without a model',
  )
  .action(async (opts) => {
    const { mineCommand } = await import('./mine');
    await mineCommand(config(), opts);
  });

program
  .command('validate')
  .description(
    'gold-validate every stage of a chains file on this host (needs Docker): a stage that fails is recorded with its reason ' +
      '(kind, command, exit code, last lines) and the run goes on; ends with the funnel per repository and language. ' +
      'Exit 75 only when Docker, the artifact store or a package registry stops answering: run it again to resume',
  )
  .requiredOption('--chains <file>', 'chains file written by `chainsmith mine`')
  .option(
    '--out <file>',
    'append one JSON line per stage as it finishes (tests FAIL_TO_PASS / PASS_TO_PASS, status, reason); a rerun with the same file skips the stages in it',
  )
  .action(async (opts) => (await import('./validate')).validateCommand(config(), opts));

program
  .command('start')
  .description(
    'run the chains of a chains file as one batch workflow (idempotent: chains that ran are not run again); each chain is gold-validated first and cut before a stage nothing can judge',
  )
  .requiredOption('--chains <file>', 'chains file written by `chainsmith mine`')
  .addOption(
    new Option(
      '--policy <policy>',
      'agent policy (default: model if an endpoint is configured, else gold-replay)',
    ).choices(['model', 'gold-replay']),
  )
  .addOption(
    new Option(
      '--scaffold <scaffold>',
      "agent protocol: function tools, or one bash block per reply (default: the config's agent.scaffold)",
    ).choices(['tools', 'bash']),
  )
  .option('--concurrency <n>', 'chains running at once', (v) => parsePositive('--concurrency', v), 4)
  .option('--task-queue <name>', 'orchestration task queue')
  .option('--wait', 'wait for the batch to finish, showing progress')
  .action(async (opts) => {
    const [
      { readChains },
      { defaultPolicy, startBatch },
      { checkModelEndpoint },
      { connectClient, workflowUrl },
      { watchBatch },
    ] = await Promise.all([
      import('../mining/output/chains-file'),
      import('../batches/start'),
      import('./preflight'),
      import('./temporal'),
      import('./watch'),
    ]);
    const cfg = config();
    const chains = await readChains(opts.chains);
    const policy = opts.policy ?? defaultPolicy(cfg);
    if (policy === 'model') await checkModelEndpoint(cfg);
    const client = await connectClient(cfg);
    const batch = await startBatch(client, cfg, chains, {
      policy,
      scaffold: opts.scaffold,
      taskQueue: opts.taskQueue,
      concurrency: opts.concurrency,
    });
    console.log(
      `${batch.existed ? 'attached to' : 'started'} batch ${batch.workflowId} of ${batch.total} chain(s), ${opts.concurrency} at a time`,
    );
    console.log(`  ${workflowUrl(cfg, batch.workflowId)}`);
    if (opts.wait) await watchBatch(batch.handle, console.log);
  });

for (const action of ['pause', 'resume', 'cancel'] as const) {
  const what = {
    pause:
      'pause a chain: its agent stops within seconds (its last step is saved) and its sandboxes are removed while it waits',
    resume: 'resume a paused chain from where it stopped',
    cancel: 'cancel a chain or batch and remove its sandboxes',
  };
  program
    .command(`${action} <workflowId>`)
    .description(what[action])
    .action(async (workflowId) => {
      const [{ controlCommand }, { connectClient }] = await Promise.all([import('./control'), import('./temporal')]);
      await controlCommand(await connectClient(config()), action, workflowId);
    });
}

program
  .command('worker')
  .description('run workers for the orchestration and sandbox task queues until interrupted')
  .option('--task-queue <name>', 'orchestration task queue')
  .option('--max-sandboxes <n>', 'concurrent rollouts on this host', (v) => parsePositive('--max-sandboxes', v), 4)
  .option(
    '--sandbox-only',
    'serve only the sandbox queues: an extra Docker host for scale-out (set its host identity with CHAINSMITH_HOST)',
  )
  .option('--orchestration-only', 'serve only workflows, queries, judge and export: a machine without a Docker engine')
  .action(async (opts) => {
    if (opts.sandboxOnly && opts.orchestrationOnly)
      throw new InputError('--sandbox-only and --orchestration-only exclude each other');
    quietSdkLogs(await import('@temporalio/worker'));
    const [{ buildDeps }, { sweepHost }, { createWorkers, runWorkers }, { connectClient, connectWorker }] =
      await Promise.all([
        import('../workers/deps'),
        import('../workers/sweep'),
        import('../workers/worker'),
        import('./temporal'),
      ]);
    const cfg = config();
    const deps = buildDeps(cfg);
    if (!opts.orchestrationOnly) await sweepHost(deps, await connectClient(cfg));
    const workers = await createWorkers({
      connection: await connectWorker(cfg),
      namespace: cfg.temporal.namespace,
      deps,
      taskQueue: opts.taskQueue,
      maxSandboxes: opts.maxSandboxes,
      serve: opts.sandboxOnly ? 'sandbox' : opts.orchestrationOnly ? 'orchestration' : 'all',
    });
    const role = opts.sandboxOnly ? ' (sandbox queues only)' : opts.orchestrationOnly ? ' (orchestration only)' : '';
    console.log(`worker on host ${cfg.worker.host}${role} running against ${cfg.temporal.address}; Ctrl-C to stop`);
    // A stopping worker takes no new rounds: its warm and prepared containers go at the signal, not
    // after its last activity has wound down, which a supervisor's grace period may not wait for.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void deps.pool?.drain());
    await runWorkers(workers);
    await deps.pool?.drain();
  });

program
  .command('status [workflowId]')
  .description(
    'list schedules (with their last runs), chains and batches, or show one chain stage by stage (or one batch)',
  )
  .action(async (workflowId) => {
    const [{ statusCommand }, { scheduleLines }, { connectClient }] = await Promise.all([
      import('./status'),
      import('./schedule'),
      import('./temporal'),
    ]);
    const cfg = config();
    const client = await connectClient(cfg);
    await statusCommand(client, workflowId, () => scheduleLines(client, cfg, 3));
  });

const schedule = program
  .command('schedule')
  .description(
    'a Temporal Schedule that mines repositories every interval and starts a batch of the chains new since its last run',
  );

const scheduleCreate = schedule
  .command('create <id>')
  .description(
    'create the schedule: each run fetches and mines every listed repository (adding to its files under <dataDir>/schedules/ID) and starts the new chains as a batch',
  )
  .requiredOption(
    '--repos <file>',
    'one repository a line: a clone path (fetched from its origin each run) or github:OWNER/NAME, then optional name=, branch=, remote=, clone=, judge-links=yes (ask the configured model about candidate links, as mine --judge-links)',
  )
  .requiredOption('--every <interval>', 'how often: minutes, hours or days (30m, 6h, 1d)', parseEvery)
  .addOption(
    new Option(
      '--policy <policy>',
      'agent policy of the batches (default: model if an endpoint is configured, else gold-replay)',
    ).choices(['model', 'gold-replay']),
  )
  .addOption(
    new Option('--scaffold <scaffold>', "agent protocol (default: the config's agent.scaffold)").choices([
      'tools',
      'bash',
    ]),
  )
  .option('--concurrency <n>', 'chains of a batch running at once', (v) => parsePositive('--concurrency', v), 4)
  .option(
    '--attempts <n>',
    "attempts of a failed run, the schedule's retry policy (1: a failed run waits for the next)",
    (v) => parsePositive('--attempts', v),
    SCHEDULE_RUN_ATTEMPTS,
  )
  .option('--max-length <n>', `longest chain (default ${DEFAULT_MAX_LENGTH})`, (v) => parsePositive('--max-length', v));

withLinkOptions(scheduleCreate)
  .option(
    '--merged-after <date>',
    `only chains whose every PR was merged at or after DATE${DATE_FORMS}: a model's training cutoff`,
    (v) => parseDateOption('--merged-after', v),
  )
  .option('--merged-before <date>', `only chains whose every PR was merged before DATE${DATE_FORMS}`, (v) =>
    parseDateOption('--merged-before', v),
  )
  .option('--task-queue <name>', 'orchestration task queue (its workers mine, so they need the clones)')
  .option('--paused', 'create it paused (trigger runs by hand, resume to start the interval)')
  .action(async (id, opts) => {
    const [{ defaultPolicy }, { checkModelEndpoint }, { createSchedule }, { connectClient }] = await Promise.all([
      import('../batches/start'),
      import('./preflight'),
      import('./schedule'),
      import('./temporal'),
    ]);
    const cfg = config();
    const policy = opts.policy ?? defaultPolicy(cfg);
    if (policy === 'model') await checkModelEndpoint(cfg);
    await createSchedule(() => connectClient(cfg), cfg, id, {
      ...opts,
      policy,
      scaffold: opts.scaffold ?? cfg.agent.scaffold,
    });
  });

schedule
  .command('list')
  .description('the schedules, each with its last runs and what each started')
  .action(async () => {
    const [{ scheduleLines }, { connectClient }] = await Promise.all([import('./schedule'), import('./temporal')]);
    const cfg = config();
    const lines = await scheduleLines(await connectClient(cfg), cfg, 3);
    console.log(
      lines.length
        ? lines.join('\n')
        : 'no schedules: create one with `chainsmith schedule create ID --repos FILE --every 1d`',
    );
  });

for (const action of ['describe', 'pause', 'resume', 'delete', 'trigger'] as const) {
  const what = {
    describe:
      'a schedule: its repositories, policy, next run and last ten runs with what each started or why it failed',
    pause: 'pause a schedule (runs already going finish)',
    resume: 'resume a paused schedule',
    delete: 'delete a schedule (the runs and batches it started, and its mined files, are kept)',
    trigger: 'run a schedule now (skipped if a run of it is still going)',
  };
  schedule
    .command(`${action} <id>`)
    .description(what[action])
    .action(async (id) => {
      const [{ scheduleCommand }, { connectClient }] = await Promise.all([import('./schedule'), import('./temporal')]);
      const cfg = config();
      await scheduleCommand(await connectClient(cfg), cfg, action, id);
    });
}

program
  .command('export')
  .description('write the SFT dataset of accepted chains (OpenAI chat format and ShareGPT-style) with a manifest')
  .option('--runs <file>', 'read finished runs from a JSONL file instead of the Temporal server')
  .option(
    '--out <dir>',
    'output directory (default: <dataDir>/datasets/export); an earlier export there is kept and extended',
  )
  .option('--query <expr>', 'Temporal visibility query narrowing the runs, e.g. \'ChainRepo = "demo/tally"\'')
  .option(
    '--merged-after <date>',
    `only samples whose every PR was merged at or after DATE (inclusive)${DATE_FORMS}; after a model's training cutoff, a held-out set`,
    (v) => parseDateOption('--merged-after', v),
  )
  .option(
    '--merged-before <date>',
    `only samples whose every PR was merged before DATE (exclusive)${DATE_FORMS}`,
    (v) => parseDateOption('--merged-before', v),
  )
  .action(async (opts) => (await import('./export')).exportCommand(config(), opts));

program
  .command('report')
  .description('write a static HTML report of an export: plots and a browsable trajectory view, no network needed')
  .option('--export <dir>', 'export directory written by `chainsmith export` (default: <dataDir>/datasets/export)')
  .option('--out <file>', 'where to write the page (default: report.html in the export directory)')
  .option('--sample <id>', 'sample shown first in the trajectory view')
  .option('--price-input <usd>', 'US dollars per million prompt tokens, for the cost plot')
  .option('--price-output <usd>', 'US dollars per million completion tokens, for the cost plot')
  .action(async (opts) => (await import('./report')).reportCommand(config(), opts));

/** The SDK's per-state INFO lines drown the progress a user is watching; warnings still show. For commands that run workers. */
function quietSdkLogs({ Runtime, DefaultLogger }: typeof import('@temporalio/worker')): void {
  Runtime.install({ logger: new DefaultLogger((process.env.CHAINSMITH_LOG_LEVEL as 'WARN') ?? 'WARN') });
}

async function main(): Promise<void> {
  // Ctrl-C on a long host-side command ends the resolvers, builds and git runs it started (some run
  // in process groups of their own, which the terminal's signal does not reach).
  program.hook('preAction', (_program, command) => {
    if (['mine', 'validate'].includes(command.name())) endChildrenOnSignals(command.name());
  });
  await program.parseAsync(process.argv);
}

main().catch((err) => {
  if (err instanceof CommanderError) {
    // --help and --version end here too (exit 0); a command group run without its command is bad input.
    if (err.exitCode === 0) process.exit(0);
    const message =
      err.code === 'commander.help' ? 'a command is needed: --help lists them' : err.message.replace(/^error: /, '');
    console.error(`error: ${message.replace(/\s*\n\s*/g, ' ')}`);
    process.exit(exitCodeFor(new InputError(message)));
  }
  // Errors we raise on purpose explain themselves; anything else is a bug and keeps its stack.
  console.error(err instanceof ChainsmithError ? `error: ${err.message}` : err);
  process.exit(exitCodeFor(err));
});
