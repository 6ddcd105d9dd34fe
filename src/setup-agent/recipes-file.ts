import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { writeAtomic } from '../atomic-file';
import { RecipeOverrideSchema, type RecipeOverride } from '../environments/recipe';

/** One era of a repository: the base commit dates its recipe validated at, and the recipe. */
const EraSchema = z.strictObject({
  /** The earliest and latest base commit date (ISO) a stage validated with this recipe at. */
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  recipe: RecipeOverrideSchema,
  /** Who found it ('setup agent, gpt-4o-mini, 2 attempts'), or a user's note after an edit. */
  origin: z.string().optional(),
});
export type Era = z.infer<typeof EraSchema>;

export const RecipesFileSchema = z.strictObject({
  repo: z.string().min(1),
  about: z.string().optional(),
  eras: z.array(EraSchema),
});
type RecipesFile = z.infer<typeof RecipesFileSchema>;

const ABOUT =
  "Environment recipes chainsmith's setup agent found for this repository, one per era (base commit dates from..to). " +
  'Stages whose base falls in an era use its recipe without asking a model; a stage outside every era tries the nearest first. ' +
  'Edit, commit or delete freely: the fields are those of environments.repos in the config.';

/** The file of one repository: `<dir>/<owner+name>.json`, readable, editable and committable. */
export function recipesPath(dir: string, repo: string): string {
  return join(dir, `${repo.replace(/\//g, '+')}.json`);
}

/**
 * The setup agent's accepted recipes, one pretty JSON file per repository. A file that does not parse
 * (a hand edit gone wrong) is reported once and left alone: it is neither used nor overwritten.
 */
export class RecipesStore {
  private readonly broken = new Map<string, string>();

  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  path(repo: string): string {
    return recipesPath(this.dir, repo);
  }

  private async read(repo: string): Promise<RecipesFile | undefined> {
    const path = this.path(repo);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return this.bad(repo, `${path} is not valid JSON (${(err as Error).message})`);
    }
    const parsed = RecipesFileSchema.safeParse(json);
    if (!parsed.success)
      return this.bad(
        repo,
        `${path} does not match the recipes schema (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`,
      );
    return parsed.data;
  }

  private bad(repo: string, problem: string): undefined {
    if (!this.broken.has(repo)) this.warn(`${problem}: its recipes are not used, and it is not overwritten`);
    this.broken.set(repo, problem);
    return undefined;
  }

  /** The recipe of the era that holds `date`, where one does. */
  async covering(repo: string, date: Date): Promise<RecipeOverride | undefined> {
    const file = await this.read(repo);
    return file?.eras.find((e) => Date.parse(e.from) <= date.getTime() && date.getTime() <= Date.parse(e.to))?.recipe;
  }

  /** The era nearest to `date` (none holds it): its recipe is tried before any model call. */
  async nearest(repo: string, date: Date): Promise<Era | undefined> {
    const file = await this.read(repo);
    const distance = (e: Era) => Math.max(Date.parse(e.from) - date.getTime(), date.getTime() - Date.parse(e.to), 0);
    return file?.eras.slice().sort((a, b) => distance(a) - distance(b))[0];
  }

  /** Records that `recipe` validated at a base of `date`: the era with the same recipe grows to hold it, else a new era starts. */
  async accept(repo: string, date: Date, recipe: RecipeOverride, origin: string): Promise<string> {
    const path = this.path(repo);
    if (this.broken.has(repo)) return path;
    const file = (await this.read(repo)) ?? { repo, about: ABOUT, eras: [] };
    if (this.broken.has(repo)) return path;
    const at = date.toISOString();
    const same = file.eras.find((e) => isDeepStrictEqual(e.recipe, recipe));
    if (same) {
      if (date.getTime() < Date.parse(same.from)) same.from = at;
      if (date.getTime() > Date.parse(same.to)) same.to = at;
    } else {
      file.eras.push({ from: at, to: at, recipe, origin });
      file.eras.sort((a, b) => Date.parse(a.from) - Date.parse(b.from));
    }
    await writeAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
    return path;
  }
}
