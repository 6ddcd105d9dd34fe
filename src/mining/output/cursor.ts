import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '../../errors';
import {
  DEFAULT_CHAINS_PER_PR,
  DEFAULT_MAX_LENGTH,
  DEFAULT_MIN_CONFIDENCE,
  DEFAULT_MIN_STRENGTH,
} from '../chains/chains';
import { DEFAULT_MAX_CHANGED_LINES } from '../chains/filters';
import { DEFAULT_WINDOW_DAYS } from '../links/code-history';
import { MiningSummarySchema, type MiningSummary } from '../summary';
import { EdgeSchema, PullRequestRecordSchema, type Chain, type Edge, type PullRequestRecord } from '../../schemas';
import { readChains } from './chains-file';

/**
 * Where a mine into an --out stopped: written beside the chains after every mine, read by the next
 * one, which then links, blames and patches only the PRs merged since (and grows earlier chains).
 */
export const MineCursorSchema = z.object({
  /** 2 records the defaults in force with the options given; 1 recorded only the options given. */
  version: z.union([z.literal(1), z.literal(2)]),
  /** The options the files were mined with, defaults included: a rerun with others would mix two graphs. */
  options: z.record(z.string(), z.unknown()),
  /** A clone's branch tip at the last mine. */
  head: z.string().optional(),
  /** The latest merge among the PRs mined so far. */
  lastMergedAt: z.string().optional(),
  prs: z.number().int().nonnegative(),
  minedAt: z.string(),
});
export type MineCursor = z.infer<typeof MineCursorSchema>;

/** What an earlier mine into the same --out wrote. */
export interface PreviousMine {
  cursor: MineCursor;
  records: PullRequestRecord[];
  edges: Edge[];
  chains: Chain[];
  summary: MiningSummary;
}

/**
 * What the mine does where an option is not given. The cursor records them with the options given: a
 * release with another default then finds its rerun refused, not grown from a graph built otherwise.
 */
const DEFAULTS: Record<string, unknown> = {
  maxLength: DEFAULT_MAX_LENGTH,
  maxChainsPerPr: DEFAULT_CHAINS_PER_PR,
  minConfidence: DEFAULT_MIN_CONFIDENCE,
  minStrength: DEFAULT_MIN_STRENGTH,
  maxChangedLines: DEFAULT_MAX_CHANGED_LINES,
  blameDays: DEFAULT_WINDOW_DAYS,
};

/** The options that shape the graph and the chains, defaults filled in, with their CLI names, for the cursor. */
export function mineFingerprint(opts: Record<string, unknown>): Record<string, unknown> {
  const keys = [
    'repo',
    'github',
    'name',
    'branch',
    'clone',
    'maxLength',
    'maxChainsPerPr',
    'minConfidence',
    'blameDays',
    'maxChangedLines',
    'keepBots',
    'keepNoCode',
    'sharedFiles',
    'mergedAfter',
    'mergedBefore',
    'minStrength',
    'requireTests',
    'judgeLinks',
  ];
  const value = (key: string) => opts[key] ?? DEFAULTS[key];
  return Object.fromEntries(
    keys.filter((key) => value(key) !== undefined && value(key) !== false).map((key) => [key, value(key)]),
  );
}

/**
 * A version-1 cursor's options, as version 2 records them. Which defaults it was made under is not
 * known; it is taken as made under today's, as it always was read before version 2.
 */
function recordedOptions(cursor: MineCursor): Record<string, unknown> {
  return cursor.version === 1 ? mineFingerprint(cursor.options) : cursor.options;
}

const flag = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

async function readJsonLines<T>(path: string, schema: z.ZodType<T>): Promise<T[]> {
  const text = await readFile(path, 'utf8').catch((cause: Error) => {
    throw new InputError(`${path} is missing beside its cursor (${cause.message}): mine again with --fresh`, { cause });
  });
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      const parsed = schema.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new InputError(`${path}:${i + 1}: ${parsed.error.issues[0]?.message}; mine again with --fresh`);
      return parsed.data;
    });
}

/** Files mined with other options than this run's: `differ` names them, then and now. */
export class OptionsChanged extends InputError {
  constructor(
    message: string,
    readonly differ: string,
  ) {
    super(message);
  }
}

/**
 * The earlier mine into these files, or undefined where there is none (no cursor). Files mined with
 * other options are refused, naming the options that differ: growing them would mix two graphs.
 */
export async function readPreviousMine(
  paths: { chains: string; prs: string; edges: string; summary: string; cursor: string },
  options: Record<string, unknown>,
): Promise<PreviousMine | undefined> {
  if (!(await stat(paths.cursor).catch(() => undefined))) return undefined;
  let cursor: MineCursor;
  try {
    cursor = MineCursorSchema.parse(JSON.parse(await readFile(paths.cursor, 'utf8')));
  } catch (cause) {
    throw new InputError(
      `${paths.cursor} is not a mining cursor (${(cause as Error).message.split('\n')[0]}): remove it or mine again with --fresh`,
      { cause },
    );
  }
  const recorded = recordedOptions(cursor);
  const keys = [...new Set([...Object.keys(recorded), ...Object.keys(options)])].sort();
  const differ = keys.filter((key) => JSON.stringify(recorded[key]) !== JSON.stringify(options[key]));
  if (differ.length > 0) {
    const was = (key: string, from: Record<string, unknown>) => (from[key] === undefined ? 'unset' : String(from[key]));
    const list = differ.map((key) => `${flag(key)} ${was(key, recorded)} then, ${was(key, options)} now`).join('; ');
    throw new OptionsChanged(
      `${paths.chains} was mined with other options (${list}): rerun with the same options to add what is new, or add --fresh to mine it again from scratch`,
      list,
    );
  }
  const records = await readJsonLines(paths.prs, PullRequestRecordSchema);
  const edges = await readJsonLines(paths.edges, EdgeSchema);
  const chains = (await stat(paths.chains).catch(() => undefined))?.size ? await readChains(paths.chains) : [];
  const summary = MiningSummarySchema.safeParse(JSON.parse(await readFile(paths.summary, 'utf8').catch(() => 'null')));
  if (!summary.success)
    throw new InputError(
      `${paths.summary} is missing or not a mining summary beside its cursor: mine again with --fresh`,
    );
  return { cursor, records, edges, chains, summary: summary.data };
}

export function latestMerge(records: readonly PullRequestRecord[]): string | undefined {
  return records.reduce<string | undefined>(
    (latest, pr) => (!latest || pr.mergedAt > latest ? pr.mergedAt : latest),
    undefined,
  );
}
