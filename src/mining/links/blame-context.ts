import type { PullRequestRecord } from '../../schemas';
import type { BlamedLine } from './blame-lines';
import { isTrivial, type DiffText } from './line-text';

/** What every B's blame shares: who owns each commit, what each PR wrote, which commits blame looks through. */
export interface BlameContext {
  clone: string;
  owner: Map<string, number>;
  byNumber: Map<number, PullRequestRecord>;
  windowMs: number;
  ignoreFile: string;
  /** Lines blame cannot pass through a sweep stay the sweep's: they are nobody's. */
  ignored: ReadonlySet<string>;
  all: readonly PullRequestRecord[];
  named: ReadonlySet<string>;
  /** A PR's whole diff, squeezed, read once. */
  wrote: (number: number) => Promise<DiffText>;
}

/** A's own diff added this line; blamed lines A only moved, re-wrapped or merged in are not A's. */
export async function writtenBy(ctx: Pick<BlameContext, 'wrote'>, number: number, line: BlamedLine): Promise<boolean> {
  return !isTrivial(line.text) && (await ctx.wrote(number)).wrote(line.text);
}
