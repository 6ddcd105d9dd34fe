import { StageError } from '../errors';
import { stageReason } from '../stage-reason';
import type { LanguageRecipe, RepoFiles } from './contract';
import type { PythonEra } from './languages/python-versions';
import { detectC } from './languages/c';
import { detectGo } from './languages/go';
import { detectJava } from './languages/java';
import { detectNode } from './languages/node';
import { detectPython } from './languages/python';
import { detectRust } from './languages/rust';
import { fallbackRecipe } from './recipe';
import { pytestFiles } from './runners/pytest';

/**
 * Detectors in order: the first that recognises the repository's layout decides. Build systems that
 * name one language (Cargo.toml, go.mod, pom.xml) come before Python and Node, whose files also appear
 * in other projects' tooling; C comes last because a Makefile drives projects in any language.
 */
const DETECTORS = [detectRust, detectGo, detectJava, detectPython, detectNode, detectC];

export interface DetectOptions {
  /** The test command where no language is recognised, and pytest's where it runs the tests (sandbox.testCommand). */
  defaultTestCommand: string;
  /** The files at the stage's PR merge, where the detector may read what the PR adds (Python's test requirements). */
  merged?: RepoFiles;
  /** The Pythons the host provides besides the base image's, and the stage's base commit date, to choose one by era. */
  python?: PythonEra;
  /** The stage PR's test files: where nothing is detected and none of them is Python, pytest is no fallback. */
  testFiles?: string[];
}

/** What the detectors look for at the root, for the message of a repository none of them knows. */
const KNOWN_LAYOUTS = 'Cargo.toml, go.mod, pom.xml, build.gradle, pyproject.toml, setup.py, setup.cfg, requirements*.txt, package.json, CMakeLists.txt, meson.build, Makefile';

export async function detectRecipe(files: RepoFiles, opts: DetectOptions): Promise<LanguageRecipe> {
  for (const detect of DETECTORS) {
    const recipe = await detect(files, opts.merged, opts.python);
    // A configured pytest command (extra flags, a plugin switched off) keeps applying to detected Python projects.
    if (recipe?.runner === 'pytest' && !recipe.test && /\bpytest\b/.test(opts.defaultTestCommand)) return { ...recipe, test: opts.defaultTestCommand };
    if (recipe) return recipe;
  }
  // Python tests run as plain files without a manifest; tests in another language do not run under pytest.
  const tests = opts.testFiles ?? [];
  if (tests.length && /\bpytest\b/.test(opts.defaultTestCommand) && !pytestFiles(tests).length) {
    const named = tests.slice(0, 3).join(', ') + (tests.length > 3 ? ', …' : '');
    const why =
      `no build system chainsmith knows is at the repository's root (it looks for ${KNOWN_LAYOUTS}), and the PR's tests (${named}) are not Python ` +
        'files pytest could run: configure a recipe for this repository (environments.repos in the config)';
    throw new StageError(why, { reason: stageReason('unsupported', why) });
  }
  return fallbackRecipe(opts.defaultTestCommand);
}
