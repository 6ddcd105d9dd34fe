import { activityInfo } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RecentMap } from './recent-map';

/**
 * What a kill can make chainsmith do twice: model calls, test commands, environment builds (the units
 * the durability bench counts), and the sandbox opens and agent actions around them (their seconds
 * count, they are no unit of their own).
 */
export type WorkKind = 'model' | 'test' | 'build' | 'open' | 'action';

/** One line of the journal: a unit's start, or its end (`ok` false when it threw). */
export interface WorkRecord {
  ev: 'start' | 'end';
  /** The same for the same work wherever and whenever it runs again: a second start of an id is work redone. */
  id: string;
  kind: WorkKind;
  /** The activity type it ran in, or 'none' outside an activity. */
  activity: string;
  attempt: number;
  pid: number;
  /** Epoch milliseconds. */
  t: number;
  ok?: boolean;
}

/**
 * Which occurrence of the same work this is within one activity attempt (the same test command run
 * before and after the gold patch), per attempt. Only attempts under way need theirs, so a long-lived
 * worker keeps those of its most recent attempts, far more than it runs at once, not of every attempt it ever ran.
 */
const occurrences = new RecentMap<string, Map<string, number>>(1024);

/**
 * Runs `fn` as one piece of work, and where CHAINSMITH_WORK_JOURNAL names a file appends a line to it
 * when it starts and when it ends; with no journal it only runs `fn`. Synchronous appends: a SIGKILL
 * right after the start must not lose its line. A piece's id is its activity (workflow, run, activity
 * id: a retry keeps them), its kind, a hash of `what` and its occurrence in the attempt, so the same
 * work run again by a retry gets the same id; `global` ids leave the activity out (an environment
 * image is the same build whoever asks for it). `what` may be a function, so that a costly identity
 * (a whole conversation) is computed only where a journal is kept.
 */
export async function journaled<T>(
  kind: WorkKind,
  what: string | (() => string),
  fn: () => Promise<T>,
  opts: { global?: boolean } = {},
): Promise<T> {
  const file = process.env.CHAINSMITH_WORK_JOURNAL;
  if (!file) return fn();
  const where = currentActivity();
  const hash = createHash('sha256')
    .update(typeof what === 'string' ? what : what())
    .digest('hex')
    .slice(0, 16);
  const scope = opts.global ? 'global' : where.scope;
  const attempt = `${where.scope}#${where.attempt}`;
  const counts = occurrences.get(attempt) ?? new Map<string, number>();
  occurrences.set(attempt, counts);
  const counter = `${kind}|${hash}`;
  const n = counts.get(counter) ?? 0;
  counts.set(counter, n + 1);
  const base = {
    id: `${scope}|${kind}|${hash}|${n}`,
    kind,
    activity: where.type,
    attempt: where.attempt,
    pid: process.pid,
  };
  mkdirSync(dirname(file), { recursive: true });
  const write = (r: WorkRecord) => appendFileSync(file, `${JSON.stringify(r)}\n`);
  write({ ev: 'start', ...base, t: Date.now() });
  let ok = false;
  try {
    const value = await fn();
    ok = true;
    return value;
  } finally {
    write({ ev: 'end', ...base, t: Date.now(), ok });
  }
}

function currentActivity(): { scope: string; type: string; attempt: number } {
  try {
    const info = activityInfo();
    const run = info.workflowExecution;
    return {
      scope: `${run?.workflowId}/${run?.runId}/${info.activityId}`,
      type: info.activityType,
      attempt: info.attempt,
    };
  } catch {
    // Outside an activity (a bench's bare loop, the CLI's validate): the process is the scope.
    return { scope: `process-${process.pid}`, type: 'none', attempt: 1 };
  }
}
