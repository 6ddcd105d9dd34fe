import { existsSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors';
import { DEFAULT_PRICES, PriceSchema } from './agent/pricing';
import { BASE } from './environments/languages';
import { RecipeOverrideSchema } from './environments/recipe';
import { ScaffoldKind } from './schemas/trajectory';

const ConfigSchema = z.strictObject({
  dataDir: z.string().min(1),
  temporal: z.strictObject({
    address: z.string().regex(/^[^\s:]+:\d+$/, 'host:port'),
    namespace: z.string().min(1),
    uiUrl: z.url(),
  }),
  /** Absent baseUrl means no model: the agent replays gold patches and the judge uses tests only. */
  model: z.strictObject({
    baseUrl: z.url().optional(),
    apiKey: z.string().optional(),
    name: z.string().min(1),
    judgeName: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive(),
    /**
     * Tries per model call of the link judge (`mine --judge-links`, scheduled mines) and of the setup agent under `validate` (429, 5xx,
     * timeouts; src/model/retry.ts); backoff doubles from retryBaseMs. Inside activities (agent, judge, query writer, setup agent) a call is
     * tried once and Temporal retries the activity (src/retry-budget.ts).
     */
    retries: z.number().int().min(1).max(10),
    retryBaseMs: z.number().int().nonnegative(),
  }),
  agent: z.strictObject({
    /** The agent's protocol for chains started without `--scaffold`: function tools, or one bash block per reply. */
    scaffold: ScaffoldKind,
    maxSteps: z.number().int().positive(),
    commandTimeoutSeconds: z.number().int().positive(),
    maxOutputChars: z.number().int().min(200),
  }),
  judge: z.strictObject({
    threshold: z.number().min(0).max(1),
    maxRefinements: z.number().int().min(0).max(10),
  }),
  /** Absent s3: a directory under dataDir. With s3: one bucket every worker host shares. */
  artifacts: z.strictObject({
    s3: z
      .strictObject({
        bucket: z.string().min(1),
        prefix: z.string(),
        endpoint: z.url().optional(),
        region: z.string().min(1),
      })
      .optional(),
  }),
  /**
   * This worker's host identity: names the host's own task queue and labels the sandboxes it starts,
   * so cleanup and the start sweep find them. Distinct per Docker host; it must stay the same when the
   * worker restarts there (the machine's hostname by default; set it where that changes, e.g. containers).
   */
  worker: z.strictObject({ host: z.string().regex(/^[\w.-]+$/, 'letters, digits, "_", "." and "-"') }),
  durability: z.strictObject({
    /**
     * An activity that sends no heartbeat for this long is taken as dead and retried (a rollout from its
     * last step). It is also how a task Temporal loses on its way to a worker is found: the server marks
     * it started and waits for its heartbeats (an overloaded dev server lost a few at a batch's start).
     */
    heartbeatTimeoutSeconds: z.number().int().min(2),
  }),
  sandbox: z.strictObject({
    image: z.string().min(1).optional(),
    memoryMb: z.number().int().min(64),
    pidsLimit: z.number().int().min(16),
    /** Warm sandboxes a worker keeps started per environment image, and at most as many prepared for next stages (src/stage/pool.ts); 0: each on demand. */
    poolSize: z.number().int().min(0).max(16),
    /** The test command of a repository whose language is not recognised (default: the base language's, pytest), and the command of a detected project whose runner runs it. */
    testCommand: z.string().min(1),
  }),
  /**
   * Per-repository environments: a recipe (setup commands run once into an image on top of the base
   * image, a test command) is detected from the repository's layout unless `repos` names one.
   */
  environments: z.strictObject({
    /** Recipes by repository name ("owner/name"); these replace detection for that repository. */
    repos: z.record(z.string().min(1), RecipeOverrideSchema),
    /** Network of the one-off build container: 'none' installs offline; 'default' lets a recipe download. */
    buildNetwork: z.enum(['none', 'default']),
    /** Within the gold-validation activity's 25 minutes, which builds an image it lacks. */
    buildTimeoutSeconds: z.number().int().positive(),
    /** CPU limit of every sandbox and build container. */
    cpus: z.number().positive().max(64),
    /** CPython installation prefixes (absolute) a Python project may get, besides pyenv's versions and the base image's 3.11. */
    pythons: z.array(z.string().startsWith('/')),
    /** Runs of a PR's tests after the gold change in gold validation; a test whose outcome differs between them is flaky and checks nothing. */
    goldRuns: z.number().int().min(1).max(10),
    /** Recipes the setup agent (src/setup-agent) may propose for one stage detection cannot set up; default 3. */
    setupAttempts: z.number().int().min(1).max(10).optional(),
    /** Where accepted setup-agent recipes are saved, one file per repository; default <dataDir>/recipes. */
    recipesDir: z.string().min(1).optional(),
  }),
  /**
   * What one chain's conversation may spend. Tokens and cost come from the API's usage, priced with
   * `prices` (US dollars per million tokens, by model name). Absent limits do not apply.
   */
  budget: z.strictObject({
    maxTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
    maxWallSeconds: z.number().int().positive().optional(),
    /** Prompt size past which older tool outputs are shortened in what the model sees (once, announced). */
    contextTokens: z.number().int().min(1000).optional(),
    prices: z.record(z.string().min(1), PriceSchema),
  }),
});
export type Config = z.infer<typeof ConfigSchema>;

type Env = Record<string, string | undefined>;

/** Each env variable and the config path it fills; env wins over the file. */
const ENV: Record<string, { path: string[]; number?: boolean }> = {
  CHAINSMITH_HOME: { path: ['dataDir'] },
  CHAINSMITH_TEMPORAL_ADDRESS: { path: ['temporal', 'address'] },
  CHAINSMITH_TEMPORAL_NAMESPACE: { path: ['temporal', 'namespace'] },
  CHAINSMITH_TEMPORAL_UI: { path: ['temporal', 'uiUrl'] },
  OPENAI_BASE_URL: { path: ['model', 'baseUrl'] },
  CHAINSMITH_MODEL_BASE_URL: { path: ['model', 'baseUrl'] },
  OPENAI_API_KEY: { path: ['model', 'apiKey'] },
  CHAINSMITH_MODEL_API_KEY: { path: ['model', 'apiKey'] },
  CHAINSMITH_MODEL: { path: ['model', 'name'] },
  CHAINSMITH_JUDGE_MODEL: { path: ['model', 'judgeName'] },
  CHAINSMITH_MODEL_TIMEOUT_MS: { path: ['model', 'timeoutMs'], number: true },
  CHAINSMITH_MODEL_RETRIES: { path: ['model', 'retries'], number: true },
  CHAINSMITH_MODEL_RETRY_BASE_MS: { path: ['model', 'retryBaseMs'], number: true },
  CHAINSMITH_MAX_STEPS: { path: ['agent', 'maxSteps'], number: true },
  CHAINSMITH_SCAFFOLD: { path: ['agent', 'scaffold'] },
  CHAINSMITH_JUDGE_THRESHOLD: { path: ['judge', 'threshold'], number: true },
  CHAINSMITH_MAX_REFINEMENTS: { path: ['judge', 'maxRefinements'], number: true },
  CHAINSMITH_HOST: { path: ['worker', 'host'] },
  CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: { path: ['durability', 'heartbeatTimeoutSeconds'], number: true },
  CHAINSMITH_S3_PREFIX: { path: ['artifacts', 's3', 'prefix'] },
  CHAINSMITH_S3_ENDPOINT: { path: ['artifacts', 's3', 'endpoint'] },
  CHAINSMITH_SANDBOX_IMAGE: { path: ['sandbox', 'image'] },
  CHAINSMITH_SANDBOX_POOL: { path: ['sandbox', 'poolSize'], number: true },
  CHAINSMITH_SANDBOX_CPUS: { path: ['environments', 'cpus'], number: true },
  CHAINSMITH_BUILD_NETWORK: { path: ['environments', 'buildNetwork'] },
  CHAINSMITH_GOLD_RUNS: { path: ['environments', 'goldRuns'], number: true },
  CHAINSMITH_SETUP_ATTEMPTS: { path: ['environments', 'setupAttempts'], number: true },
  CHAINSMITH_MAX_TOKENS: { path: ['budget', 'maxTokens'], number: true },
  CHAINSMITH_MAX_COST_USD: { path: ['budget', 'maxCostUsd'], number: true },
  CHAINSMITH_MAX_WALL_SECONDS: { path: ['budget', 'maxWallSeconds'], number: true },
  CHAINSMITH_CONTEXT_TOKENS: { path: ['budget', 'contextTokens'], number: true },
};

function defaults(env: Env): Config {
  return {
    dataDir: join(homedir(), '.chainsmith'),
    temporal: {
      address: '127.0.0.1:7233',
      namespace: 'default',
      uiUrl: `http://127.0.0.1:${env.CHAINSMITH_TEMPORAL_UI_PORT ?? 8233}`,
    },
    model: { name: 'gpt-4o-mini', timeoutMs: 120_000, retries: 4, retryBaseMs: 1_000 },
    agent: { scaffold: 'tools', maxSteps: 60, commandTimeoutSeconds: 120, maxOutputChars: 8_000 },
    judge: { threshold: 0.8, maxRefinements: 3 },
    artifacts: env.CHAINSMITH_S3_BUCKET
      ? { s3: { bucket: env.CHAINSMITH_S3_BUCKET, prefix: '', region: env.AWS_REGION ?? 'us-east-1' } }
      : {},
    worker: { host: hostname() },
    durability: { heartbeatTimeoutSeconds: 10 },
    // Room for a stress test's thousand threads (once_cell's get_or_init_stress, behind one Barrier, hung
    // at 512 until the run timed out); still a bound on a runaway fork, as memoryMb is.
    sandbox: { memoryMb: 2048, pidsLimit: 4096, poolSize: 2, testCommand: BASE.testCommand },
    environments: { repos: {}, buildNetwork: 'none', buildTimeoutSeconds: 1200, cpus: 1, pythons: [], goldRuns: 2 },
    budget: { prices: DEFAULT_PRICES },
  };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function merge(base: any, over: any): any {
  if (typeof over !== 'object' || over === null || Array.isArray(over)) return over;
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = merge(base?.[k], v);
  return out;
}

/** Loads defaults ← config file (chainsmith.config.json or CHAINSMITH_CONFIG) ← env, and validates once. */
export function loadConfig(opts: { env?: Env; file?: string; cwd?: string } = {}): Config {
  const env = opts.env ?? process.env;
  const file = opts.file ?? env.CHAINSMITH_CONFIG ?? resolve(opts.cwd ?? process.cwd(), 'chainsmith.config.json');
  let raw: any = defaults(env);
  const origin = new Map<string, string>();
  if (existsSync(file)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      const why =
        code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (cause as Error).message;
      throw new ConfigError(`config file ${file} cannot be read: ${why}`, { cause });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(cause as Error).message}`, { cause });
    }
    raw = merge(raw, parsed);
  } else if (opts.file || env.CHAINSMITH_CONFIG) {
    throw new ConfigError(`config file ${file} does not exist`);
  }
  for (const [name, { path, number }] of Object.entries(ENV)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    let target = raw;
    for (const key of path.slice(0, -1)) target = target[key] ??= {};
    target[path[path.length - 1]] = number && value.trim() !== '' && !isNaN(Number(value)) ? Number(value) : value;
    origin.set(path.join('.'), name);
  }
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      // An unknown key is named where it is, not reported as its whole parent object.
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      return keys.map((key) => {
        const path = [...issue.path, ...(key === undefined ? [] : [key])].join('.');
        const from = origin.get(path)
          ? ` (from ${origin.get(path)})`
          : existsSync(file)
            ? ` (from ${file} or defaults)`
            : '';
        const got = key === undefined ? issue.path.reduce<any>((o, k) => o?.[k as string], raw) : undefined;
        const what = key === undefined ? issue.message : 'not a setting';
        return `${path || '(root)'}: ${what}${got === undefined ? '' : `, got ${shorten(JSON.stringify(got))}`}${from}`;
      });
    });
    throw new ConfigError(`invalid config: ${problems.flat().join('; ')}`);
  }
  return result.data;
}
