import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeAtomic } from '../../../atomic-file';
import { UsageSchema } from '../../../schemas';
import { LinkVerdictSchema } from './ask-model';

const CachedVerdictSchema = z.object({
  repo: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  model: z.string(),
  promptVersion: z.string(),
  verdict: LinkVerdictSchema,
  /** What asking cost when it was asked. */
  usage: UsageSchema,
  judgedAt: z.string(),
});
type CachedVerdict = z.infer<typeof CachedVerdictSchema>;

/** A folder name from any text: safe characters kept, the rest "_" (the file itself says whose it is). */
const slug = (text: string) => text.replace(/[^\w.-]+/g, '_');

/**
 * Verdicts on disk, one small JSON file each, at <root>/<repo>/<model>/<prompt version>/<from>-<to>.json:
 * a rerun, or a mine cut short and started again, asks the model only about pairs it has no verdict
 * for. A new model or prompt version is a new folder, so nothing stale is read. A file that does not
 * parse, or names another repository or model (two names can share a slug), counts as missing.
 */
export class VerdictCache {
  constructor(
    private readonly root: string,
    private readonly repo: string,
    private readonly model: string,
    private readonly promptVersion: string,
  ) {}

  private path(from: number, to: number): string {
    return join(this.root, slug(this.repo), slug(this.model), this.promptVersion, `${from}-${to}.json`);
  }

  async get(from: number, to: number): Promise<CachedVerdict | undefined> {
    const text = await readFile(this.path(from, to), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = CachedVerdictSchema.safeParse(json);
    if (!parsed.success) return undefined;
    const { repo, model, promptVersion } = parsed.data;
    return repo === this.repo && model === this.model && promptVersion === this.promptVersion ? parsed.data : undefined;
  }

  async put(entry: Omit<CachedVerdict, 'repo' | 'model' | 'promptVersion' | 'judgedAt'>): Promise<void> {
    const full: CachedVerdict = {
      repo: this.repo,
      model: this.model,
      promptVersion: this.promptVersion,
      ...entry,
      judgedAt: new Date().toISOString(),
    };
    await writeAtomic(this.path(entry.from, entry.to), JSON.stringify(full, null, 2) + '\n');
  }
}
