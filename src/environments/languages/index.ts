import type { DetectContext, ExitCode, LanguageRecipe, LanguageSupport, NoLanguage, TestRunner } from '../contract';
import { exitCodeRunner } from '../runners/exit-code';
import { c } from './c';
import { go } from './go';
import { java } from './java';
import { node } from './node';
import { python } from './python';
import { rust } from './rust';

/**
 * The languages chainsmith builds environments for: the only list of them. Everything else that
 * names languages, runners or toolchains (the config's recipe schema, detection, the runners, the
 * toolchain probes, the agent's description, the miner's test-file patterns) is derived from it.
 *
 * In the order detection tries them: the first that recognises the repository's layout decides.
 * Build systems that name one language (Cargo.toml, go.mod, pom.xml) come before Python and Node,
 * whose files also appear in other projects' tooling; C comes last because a Makefile drives projects
 * in any language.
 */
export const LANGUAGES = [rust, go, java, python, node, c] as const;

type Entry = (typeof LANGUAGES)[number];
type RunnersOf<E> = E extends { runners: infer X } ? keyof X & string : never;
type ToolchainsOf<E> = E extends { toolchains: infer X } ? keyof X & string : never;
type SettingsOf<E> = E extends { detect(files: never, ctx: DetectContext<infer S>): unknown } ? (x: S) => void : never;

/** A language's name on recipes and manifests; 'unknown' where none was detected or configured. */
export type Language = Entry['name'] | NoLanguage;
/** How a test run reports per-test outcomes; 'exit-code' knows only pass or fail. */
export type RunnerName = RunnersOf<Entry> | ExitCode;
/** A toolchain image (images/toolchains/NAME/packages on top of images/base). */
export type ToolchainName = ToolchainsOf<Entry>;
/** A recipe of any language, or of none. */
export type Recipe = LanguageRecipe<Language, RunnerName, ToolchainName>;
/** The config settings the languages read, together (each language's own type, intersected). */
export type LanguageSettings = SettingsOf<Entry> extends (x: infer I) => void ? I : never;

const languages: readonly LanguageSupport[] = LANGUAGES;

export const LANGUAGE_NAMES = [...languages.map((l) => l.name), 'unknown'] as unknown as [Language, ...Language[]];

const RUNNERS = new Map<string, TestRunner>([...languages.flatMap((l) => Object.values<TestRunner>(l.runners)), exitCodeRunner].map((r) => [r.name, r]));
export const RUNNER_NAMES = [...RUNNERS.keys()] as [RunnerName, ...RunnerName[]];

const TOOLCHAINS = new Map<string, { probe: string; language: LanguageSupport }>(
  languages.flatMap((language) => Object.entries<string>(language.toolchains).map(([name, probe]) => [name, { probe, language }] as const)),
);
export const TOOLCHAIN_NAMES = [...TOOLCHAINS.keys()] as [ToolchainName, ...ToolchainName[]];

export function runnerFor(name: RunnerName): TestRunner {
  return RUNNERS.get(name)!;
}

/** The runner a configured test command runs (pytest for `python3 -m pytest …`), else the exit code's. */
export function runnerOfCommand(command: string | undefined): RunnerName {
  const runner = command ? [...RUNNERS.values()].find((r) => r.runs?.(command)) : undefined;
  return (runner?.name ?? exitCodeRunner.name) as RunnerName;
}

/** What the toolchain reports as its version, run in the image after a build (recorded on the manifest). */
export function toolchainProbe(name: ToolchainName): string {
  return TOOLCHAINS.get(name)!.probe;
}

/** The language whose folder declares the toolchain. */
export function toolchainLanguage(name: ToolchainName): LanguageSupport {
  return TOOLCHAINS.get(name)!.language;
}

/** How the agent's system prompt names a language; undefined for 'unknown'. */
export function languageTitle(name: string): string | undefined {
  return languages.find((l) => l.name === name)?.title;
}

/**
 * The language whose toolchain is the base image: a repository nothing was detected in builds there
 * and runs its test command (sandbox.testCommand's default).
 */
export const BASE = ((): { toolchain: ToolchainName; testCommand: string } => {
  const bases = languages.filter((l) => l.base);
  if (bases.length !== 1) throw new Error(`exactly one language has the base image as its toolchain; ${bases.length} do`);
  return bases[0].base as { toolchain: ToolchainName; testCommand: string };
})();

/** The tool's one-line reason for a failing test, from whichever runner recognises its output. */
export function failureLine(output: string, id: string): string | undefined {
  for (const runner of RUNNERS.values()) {
    const line = runner.failureLine?.(output, id);
    if (line) return line;
  }
  return undefined;
}
