import type { DetectContext, ExitCode, LanguageRecipe, LanguageSupport, NoLanguage, TestRunner } from '../contract';
import { exitCodeRunner } from '../runners/exit-code';

type Entry<E extends readonly LanguageSupport[]> = E[number];
type RunnersOf<S> = S extends { runners: infer X } ? keyof X & string : never;
type ToolchainsOf<S> = S extends { toolchains: infer X } ? keyof X & string : never;
type SettingsOf<S> = S extends { detect(files: never, ctx: DetectContext<infer T>): unknown } ? (x: T) => void : never;

/** A language's name on recipes and manifests; 'unknown' where none was detected or configured. */
export type LanguageOf<E extends readonly LanguageSupport[]> = Entry<E>['name'] | NoLanguage;
/** How a test run reports per-test outcomes; 'exit-code' knows only pass or fail. */
export type RunnerOf<E extends readonly LanguageSupport[]> = RunnersOf<Entry<E>> | ExitCode;
/** A toolchain image (images/toolchains/NAME/packages on top of images/base). */
export type ToolchainOf<E extends readonly LanguageSupport[]> = ToolchainsOf<Entry<E>>;
/** The config settings the languages read, together (each language's own type, intersected). */
export type SettingsOfAll<E extends readonly LanguageSupport[]> =
  SettingsOf<Entry<E>> extends (x: infer I) => void ? I : never;
export type RecipeOf<E extends readonly LanguageSupport[]> = LanguageRecipe<LanguageOf<E>, RunnerOf<E>, ToolchainOf<E>>;

/**
 * Everything derived from an ordered list of languages: the names the config may use, the runners and
 * toolchains by name, the base language. languages/index.ts builds the one registry from its list; no
 * other file lists languages, runners or toolchains.
 */
export function registryOf<const E extends readonly LanguageSupport[]>(languages: E) {
  type Language = LanguageOf<E>;
  type RunnerName = RunnerOf<E>;
  type ToolchainName = ToolchainOf<E>;
  const runners = new Map<string, TestRunner>(
    [...languages.flatMap((l) => Object.values<TestRunner>(l.runners)), exitCodeRunner].map((r) => [r.name, r]),
  );
  const toolchains = new Map<string, { probe: string; language: LanguageSupport }>(
    languages.flatMap((language) =>
      Object.entries<string>(language.toolchains).map(([name, probe]) => [name, { probe, language }] as const),
    ),
  );
  const bases = languages.filter((l) => l.base);
  if (bases.length !== 1)
    throw new Error(`exactly one language has the base image as its toolchain; ${bases.length} do`);
  const toolchain = (name: ToolchainName) => {
    const found = toolchains.get(name);
    if (!found) throw new Error(`no language has a toolchain named ${name}`);
    return found;
  };
  return {
    /** In detection order. */
    LANGUAGES: languages,
    LANGUAGE_NAMES: [...languages.map((l) => l.name), 'unknown'] as unknown as [Language, ...Language[]],
    RUNNER_NAMES: [...runners.keys()] as [RunnerName, ...RunnerName[]],
    TOOLCHAIN_NAMES: [...toolchains.keys()] as [ToolchainName, ...ToolchainName[]],
    /** The language whose toolchain is the base image: a repository nothing was detected in builds there and runs its test command (sandbox.testCommand's default). */
    BASE: bases[0].base as { toolchain: ToolchainName; testCommand: string },
    runnerFor(name: RunnerName): TestRunner {
      const found = runners.get(name);
      if (!found) throw new Error(`no language has a runner named ${name}`);
      return found;
    },
    /** The runner a configured test command runs (pytest for `python3 -m pytest …`), else the exit code's. */
    runnerOfCommand(command: string | undefined): RunnerName {
      return ((command ? [...runners.values()].find((r) => r.runs?.(command))?.name : undefined) ??
        exitCodeRunner.name) as RunnerName;
    },
    /** What the toolchain reports as its version, run in the image after a build (recorded on the manifest). */
    toolchainProbe: (name: ToolchainName): string => toolchain(name).probe,
    /** The language whose folder declares the toolchain. */
    toolchainLanguage: (name: ToolchainName): LanguageSupport => toolchain(name).language,
    /** How the agent's system prompt names a language; undefined for 'unknown'. */
    languageTitle: (name: string): string | undefined => languages.find((l) => l.name === name)?.title,
    /** The tool's one-line reason for a failing test, from whichever runner recognises its output. */
    failureLine(output: string, id: string): string | undefined {
      for (const r of runners.values()) {
        const line = r.failureLine?.(output, id);
        if (line) return line;
      }
      return undefined;
    },
  };
}
