import { StageError } from '../errors';
import { stageReason } from '../stage-reason';
import type { RepoFiles } from './contract';
import { LANGUAGES, runnerFor, runnerOfCommand, type LanguageSettings, type Recipe } from './languages';
import { fallbackRecipe } from './recipe';

export interface DetectOptions {
  /** The test command where no language is recognised, and the command of a detected project whose runner runs it (sandbox.testCommand). */
  defaultTestCommand: string;
  /** The files at the stage's PR merge, where the detector may read what the PR adds (Python's test requirements). */
  merged?: RepoFiles;
  /** The stage's base commit date, for a language that chooses its toolchain by era (Python). */
  baseDate?: () => Promise<Date>;
  /** The clone and the base commit the files are read from. */
  repo?: { path: string; sha: string; merge?: string };
  /** The chain's repository name ('owner/name'). */
  repoName?: string;
  /** The config's environments section, where each language reads its own settings. */
  settings?: LanguageSettings;
  /** The stage PR's test files: where nothing is detected and the fallback runner can run none of them, it is no fallback. */
  testFiles?: string[];
}

/** What the detectors look for at the root, for the message of a repository none of them knows. */
const KNOWN_LAYOUTS = LANGUAGES.flatMap((l) => l.layouts).join(', ');

/** The first language (in the registry's order) that recognises the repository decides its recipe. */
export async function detectRecipe(files: RepoFiles, opts: DetectOptions): Promise<Recipe> {
  const ctx = {
    ...(opts.merged ? { merged: opts.merged } : {}),
    ...(opts.repo ? { repo: opts.repo } : {}),
    ...(opts.repoName ? { repoName: opts.repoName } : {}),
    baseDate: opts.baseDate ?? (async () => new Date()),
    settings: opts.settings ?? {},
  };
  for (const language of LANGUAGES) {
    const recipe: Recipe | undefined = await language.detect(files, ctx);
    // A configured command the runner runs (pytest with extra flags, a plugin switched off) keeps applying to detected projects.
    if (recipe && !recipe.test && runnerFor(recipe.runner).runs?.(opts.defaultTestCommand))
      return { ...recipe, test: opts.defaultTestCommand };
    if (recipe) return recipe;
  }
  // Python tests run as plain files without a manifest; tests in another language do not run under pytest.
  const tests = opts.testFiles ?? [];
  const fallback = runnerFor(runnerOfCommand(opts.defaultTestCommand));
  if (tests.length && fallback.selects && !fallback.selects.files(tests).length) {
    const named = tests.slice(0, 3).join(', ') + (tests.length > 3 ? ', …' : '');
    const why =
      `no build system chainsmith knows is at the repository's root (it looks for ${KNOWN_LAYOUTS}), and the PR's tests (${named}) are not ${fallback.selects.described}: ` +
      'configure a recipe for this repository (environments.repos in the config)';
    throw new StageError(why, { reason: stageReason('unsupported', why) });
  }
  return fallbackRecipe(opts.defaultTestCommand);
}
