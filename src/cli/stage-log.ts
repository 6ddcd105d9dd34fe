import { existsSync } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { writeAtomic } from '../atomic-file';
import { InputError } from '../errors';
import type { StagePlace } from '../judge/gold-yield';
import { GoldTestsSchema, type Chain, type GoldTests } from '../schemas';

/** One line of `validate --out`: where the stage is in the chains, and its gold validation. */
const StageLineSchema = GoldTestsSchema.extend({ chainId: z.string(), stage: z.number().int().nonnegative() });

/**
 * `validate --out`, written as stages finish: one whole JSON line per stage, appended and synced to
 * disk before the next stage starts, so a run that is killed loses at most the stage under way. A rerun
 * with the same file reads the stages there and does not validate them again. A last line cut short
 * by a crash is dropped (the file is rewritten whole without it) before anything is appended.
 */
export class StageLog {
  private constructor(
    private readonly path: string,
    private readonly file: FileHandle,
    private readonly done: Map<string, GoldTests>,
  ) {}

  static async open(path: string): Promise<StageLog> {
    const done = new Map<string, GoldTests>();
    if (existsSync(path)) {
      const text = await readFile(path, 'utf8');
      const lines = text.split('\n');
      // Only the last line can be torn (every earlier one ended with its newline before the next was written).
      const torn = lines.pop() ?? '';
      for (const [i, line] of lines.entries()) {
        if (!line.trim()) continue;
        const parsed = StageLineSchema.safeParse(parseJson(line));
        if (!parsed.success) {
          throw new InputError(
            `--out ${path}:${i + 1} is not a stage record of validate (${parsed.error.issues[0]?.message}); remove the file or choose another to start afresh`,
          );
        }
        const { chainId, stage, ...gold } = parsed.data;
        done.set(key({ chainId, stage }), gold);
      }
      if (torn.trim()) await writeAtomic(path, lines.map((l) => `${l}\n`).join(''));
    }
    return new StageLog(path, await open(path, 'a'), done);
  }

  /** Stages in the file already. */
  get size(): number {
    return this.done.size;
  }

  /** The stage's record from an earlier run, where it is of the same PR (a chains file mined again may have changed). */
  known(place: StagePlace, chain: Chain): GoldTests | undefined {
    const g = this.done.get(key(place));
    const pr = chain.prs[place.stage];
    return g && g.prNumber === pr.number && g.repo === chain.repo.name ? g : undefined;
  }

  async append(place: StagePlace, record: GoldTests): Promise<void> {
    await this.file.appendFile(`${JSON.stringify({ chainId: place.chainId, stage: place.stage, ...record })}\n`);
    await this.file.sync();
    this.done.set(key(place), record);
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  toString(): string {
    return this.path;
  }
}

const key = (p: StagePlace) => `${p.chainId}\0${p.stage}`;

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
