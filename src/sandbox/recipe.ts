import { z } from 'zod';

/**
 * How to make a repository's environment: shell commands run once, as the agent user in the
 * repository at a stage's base, whose result becomes an image every stage's sandbox starts from.
 * Pure schema: the config imports it.
 */
export const RecipeSchema = z.strictObject({
  /** Where the recipe came from: a detected layout ('python-package', 'node-npm', …) or 'config'. */
  origin: z.string().min(1),
  setup: z.array(z.string().min(1)),
  /** The repository's test command; absent means the configured default (sandbox.testCommand). */
  test: z.string().min(1).optional(),
  /** Directories put in front of PATH in the image (a virtualenv's bin, node_modules/.bin). */
  path: z.array(z.string().startsWith('/')),
  /** Files whose content decides the environment: a change to one of them builds a new image. */
  manifests: z.array(z.string().min(1)),
});
export type Recipe = z.infer<typeof RecipeSchema>;

/** A recipe as the config file names it for one repository; it replaces detection. */
export const RecipeOverrideSchema = z.strictObject({
  setup: z.array(z.string().min(1)),
  test: z.string().min(1).optional(),
  path: z.array(z.string().startsWith('/')).optional(),
  manifests: z.array(z.string().min(1)).optional(),
});
export type RecipeOverride = z.infer<typeof RecipeOverrideSchema>;

export function recipeFromConfig(override: RecipeOverride): Recipe {
  return { origin: 'config', setup: override.setup, test: override.test, path: override.path ?? [], manifests: override.manifests ?? [] };
}
