import { c } from './c';
import { go } from './go';
import { java } from './java';
import { node } from './node';
import { python } from './python';
import {
  registryOf,
  type LanguageOf,
  type RecipeOf,
  type RunnerOf,
  type SettingsOfAll,
  type ToolchainOf,
} from './registry';
import { rust } from './rust';

/**
 * The languages chainsmith builds environments for: the only list of them. Everything else that
 * names languages, runners or toolchains (the config's recipe schema, detection, the runners, the
 * toolchain probes, the agent's description, the miner's test-file patterns) is derived from it
 * (registry.ts). A language is a folder beside this file whose index.ts exports its LanguageSupport,
 * and one entry here.
 *
 * In the order detection tries them: the first that recognises the repository's layout decides.
 * Build systems that name one language (Cargo.toml, go.mod, pom.xml) come before Python and Node,
 * whose files also appear in other projects' tooling; C comes last because a Makefile drives projects
 * in any language.
 */
export const {
  LANGUAGES,
  LANGUAGE_NAMES,
  RUNNER_NAMES,
  TOOLCHAIN_NAMES,
  BASE,
  runnerFor,
  runnerOfCommand,
  toolchainProbe,
  toolchainLanguage,
  languageTitle,
  failureLine,
} = registryOf([rust, go, java, python, node, c]);

export type Language = LanguageOf<typeof LANGUAGES>;
export type RunnerName = RunnerOf<typeof LANGUAGES>;
export type ToolchainName = ToolchainOf<typeof LANGUAGES>;
/** A recipe of any language, or of none. */
export type Recipe = RecipeOf<typeof LANGUAGES>;
export type LanguageSettings = SettingsOfAll<typeof LANGUAGES>;
