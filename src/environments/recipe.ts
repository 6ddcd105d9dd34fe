import { z } from 'zod';
import { BASE, LANGUAGE_NAMES, RUNNER_NAMES, runnerOfCommand, TOOLCHAIN_NAMES, type Recipe } from './languages';

/**
 * A recipe as the config file names it for one repository; it replaces detection. Setup lines run in
 * the build container without network, so whatever they install must already be in the toolchain image.
 * Pure schema: the config imports it.
 */
export const RecipeOverrideSchema = z.strictObject({
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
});
export type RecipeOverride = z.infer<typeof RecipeOverrideSchema>;

/** The recipe a config names; `defaultTestCommand` (sandbox.testCommand) runs where it names no test. */
export function recipeFromConfig(override: RecipeOverride, defaultTestCommand: string): Recipe {
  const test = override.test ?? (override.runner ? undefined : defaultTestCommand);
  return {
    language: override.language ?? 'unknown',
    origin: 'config',
    toolchain: { image: override.toolchain ?? BASE.toolchain },
    manifests: override.manifests ?? [],
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
