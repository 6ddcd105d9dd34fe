import { z } from 'zod';
import { InputError } from '../errors';
import type { LanguageSupport } from './contract';
import {
  BASE,
  LANGUAGE_NAMES,
  LANGUAGES,
  RUNNER_NAMES,
  runnerOfCommand,
  TOOLCHAIN_NAMES,
  toolchainLanguage,
  type Recipe,
} from './languages';

/**
 * A recipe as the config file names it for one repository; it replaces detection. Setup lines run in
 * the build container without network, so whatever they install must already be in the toolchain image.
 * Pure schema: the config imports it.
 */
export const RecipeOverrideSchema = z
  .strictObject({
    setup: z.array(z.string().min(1)),
    /** The test command; absent means the runner's own (or sandbox.testCommand where no runner is named). */
    test: z.string().min(1).optional(),
    /** Directories put in front of PATH in the image (a virtualenv's bin, node_modules/.bin). */
    path: z.array(z.string().startsWith('/')).optional(),
    /** Files whose content decides the environment: a change to one of them builds a new image. */
    manifests: z.array(z.string().min(1)).optional(),
    language: z.enum(LANGUAGE_NAMES).optional(),
    /** How per-test outcomes are read; absent: the runner whose tool the test command runs (pytest), else the exit code. */
    runner: z.enum(RUNNER_NAMES).optional(),
    /** The toolchain image to build on (images/toolchains/NAME); absent: the base image (the base language's, Python's). */
    toolchain: z.enum(TOOLCHAIN_NAMES).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional(),
    /**
     * Manifests the recipe's language resolves on the host, through the host's configured registries,
     * before the offline build (Python: requirement files, pyproject.toml, setup.py); what they resolve
     * to is mounted read-only at /deps for the setup lines to install from. They decide the environment
     * as `manifests` do.
     */
    resolve: z.array(z.string().min(1)).min(1).optional(),
  })
  .superRefine((recipe, ctx) => {
    const problem = resolveProblem(recipe);
    if (problem) ctx.addIssue({ code: 'custom', path: ['resolve'], message: problem });
  });
export type RecipeOverride = z.infer<typeof RecipeOverrideSchema>;

/** The language whose fetcher resolves a recipe's `resolve` list: the one it names, else its toolchain's. */
function resolvingLanguage(recipe: Pick<RecipeOverride, 'language' | 'toolchain'>): LanguageSupport {
  const named = recipe.language && LANGUAGES.find((l) => l.name === recipe.language);
  return named || toolchainLanguage(recipe.toolchain ?? BASE.toolchain);
}

/** Why a recipe cannot ask for `resolve` (its language has no fetch for a configured recipe), or undefined. */
export function resolveProblem(recipe: Pick<RecipeOverride, 'language' | 'toolchain' | 'resolve'>): string | undefined {
  if (!recipe.resolve?.length) return undefined;
  const language = resolvingLanguage(recipe);
  if (language.resolveConfigured) return undefined;
  const can = LANGUAGES.filter((l) => l.resolveConfigured).map((l) => l.name);
  return `resolve: ${language.name} has no host-side fetch for a configured recipe (only ${can.join(', ')} has); install from files the image can read, or set environments.buildNetwork`;
}

/**
 * The recipe a config names (or the setup agent proposed: the same path); `defaultTestCommand`
 * (sandbox.testCommand) runs where it names no test. Where it names manifests to resolve, its language's
 * own fetcher resolves them on the host, as for a detected recipe (builder.ts, dependencies.ts).
 */
export function recipeFromConfig(override: RecipeOverride, defaultTestCommand: string): Recipe {
  const test = override.test ?? (override.runner ? undefined : defaultTestCommand);
  const resolve = override.resolve ?? [];
  const fetched = resolve.length ? resolvingLanguage(override).resolveConfigured?.(resolve) : undefined;
  if (resolve.length && !fetched) throw new InputError(resolveProblem(override)!);
  return {
    ...(fetched as Partial<Recipe> | undefined),
    language: override.language ?? 'unknown',
    origin: 'config',
    toolchain: { image: override.toolchain ?? BASE.toolchain },
    // What it resolves decides the environment too, and dates the resolution.
    manifests: [...new Set([...(override.manifests ?? []), ...resolve])],
    setup: override.setup,
    env: override.env ?? {},
    path: override.path ?? [],
    runner: override.runner ?? runnerOfCommand(test),
    ...(test ? { test } : {}),
  };
}

/** A repository nothing was detected in: no setup, the configured test command. */
export function fallbackRecipe(defaultTestCommand: string): Recipe {
  return {
    language: 'unknown',
    origin: 'plain',
    toolchain: { image: BASE.toolchain },
    manifests: [],
    setup: [],
    env: {},
    path: [],
    runner: runnerOfCommand(defaultTestCommand),
    test: defaultTestCommand,
  };
}
