import type { TestCase } from '../schemas';

/**
 * The shapes every language's environment support is written against (a contract between the
 * environment builder and the folders under languages/). The names of languages, runners and
 * toolchains are not listed here: each language's folder declares its own, and the registry
 * (languages/index.ts) derives the unions from them. Pure types: safe to import anywhere.
 */

/** The language of a recipe nothing was detected for (or configured without one). */
export type NoLanguage = 'unknown';
/** The runner that knows only pass or fail, for any language (runners/exit-code.ts). */
export type ExitCode = 'exit-code';

/** A stretch of a file's text, [start, end) in string indices. */
export interface Span {
  start: number;
  end: number;
}

/** A repository's files at one commit, read on the host with git (no checkout). */
export interface RepoFiles {
  /** Names at the repository root. */
  rootFiles: ReadonlySet<string>;
  /** A file's text at the commit, or undefined where it does not exist. */
  read(path: string): Promise<string | undefined>;
}

/** Host-side dependency fetching for one environment build. */
export interface FetchContext {
  /** A checkout of the repository at the stage's base on the host; the fetcher may build in it. */
  srcDir: string;
  /** An empty directory to fill; it is mounted read-only at DEPS_MOUNT in the build container. */
  depsDir: string;
  /** Resolve as of this moment where the ecosystem allows it (the base commit's date). */
  asOf: Date;
  /** One line of progress for the user. */
  log(line: string): void;
  signal: AbortSignal;
  /** Packages an earlier build of these dependencies showed too old for the toolchain (LanguageRecipe.stale): resolved to their newest allowed releases. */
  raise?: string[];
  /** Where host tools a fetcher needs may be installed and kept between builds (uv in a venv, say). */
  toolsDir?: string;
  /**
   * The repository's dependency store as earlier fetches left it (LanguageRecipe.dependencyStore), given
   * only where every entry in it is whole (storeSettled): a fetcher may take from it what it would
   * otherwise download again, checked as a download is. Read only: fetches join it through depsDir.
   */
  store?: string;
}

/** What was resolved, recorded on the environment's manifest. */
export interface Resolution {
  ecosystem: 'pypi' | 'crates' | 'go-modules' | 'maven' | 'npm' | 'none';
  /** The host client that resolved, with its version ('uv 0.9.5', 'cargo 1.95.0'). */
  tool: string;
  /** 'committed': the repository's lock file as is; 'resolved': resolved now (as of `asOf` where supported). */
  lock: 'committed' | 'resolved' | 'none';
  asOf?: string;
  packages: Array<{ name: string; version: string }>;
  notes: string[];
  /**
   * What the code imports that no registry served (a repository gone, a host the proxy does not
   * serve), each with why: the environment is built without it, so tests that do not need it still
   * run, and a stage whose tests do need it is told so (judge/unverified-reason.ts).
   */
  unserved?: Array<{
    name: string;
    why: string;
    /** How a run's error names it: in double quotes by default (an import's), or `bare` (Maven's coordinates, bounded by neither word nor dot). */
    named?: 'bare';
  }>;
  /**
   * What the PR's merge resolves to where it differs from the base's (LanguageRecipe.withMerged
   * 'separate'): fetched into `merged/` below the dependency directory, installed by `mergedSetup`.
   */
  merged?: { asOf?: string; packages: Array<{ name: string; version: string }> };
  /**
   * The files the image installs from, where a version alone does not say what the image holds (Python:
   * a wheel built on the host from an sdist, or the sdist the image builds itself): in the image's key.
   */
  artifacts?: string[];
}

/** Where the fetched dependencies are mounted, read-only, during the environment build. */
export const DEPS_MOUNT = '/deps';
/** What opens a line a recipe's setup prints for the build log where the build succeeds (a warning, not a failure). */
export const SETUP_WARNING = 'chainsmith-warning:';

export interface LanguageRecipe<L extends string = string, R extends string = string, T extends string = string> {
  language: L;
  /** 'python-pip', 'rust-cargo', 'go-modules', 'java-maven', 'java-gradle', 'c-cmake', 'c-autotools', 'c-make', 'c-meson', 'node-npm', …, or 'config'. */
  origin: string;
  /** `prefix`: a host CPython copied into a toolchain image built on the base (images/host-python), `version` its minor. */
  toolchain: { image: T; version?: string; note?: string; prefix?: string };
  /** Root-relative files whose content decides the environment (a change builds a new image). */
  manifests: string[];
  /** Runs on the host before the build, with network through the host's configured clients. */
  fetch?(ctx: FetchContext): Promise<Resolution>;
  /**
   * The fetch resolves the same whatever the date (a committed lock, exact pins): manifests whose
   * dependency declarations are unchanged share one fetch however far apart their commits are.
   */
  pinned?: boolean;
  /**
   * Where the stage's PR changes a manifest, what its environment holds so that the base and the
   * merge both run (builder.ts): 'separate' resolves the base's and the merge's manifests each on
   * their own (ranges: one resolution cannot serve both where the PR removes or caps a dependency),
   * the merge's installed apart by `mergedSetup` where it differs, and used by runs after a change
   * (`mergedPath`); a function adds what the merge's fetch holds into the base's (exact pins: both
   * sets must be there offline). Absent: the base's alone.
   */
  withMerged?: 'separate' | ((baseDir: string, mergedDir: string) => Promise<void>);
  /**
   * A content-addressed build cache (Go's GOCACHE) that gold validation's sandboxes share across stages
   * and chains: mounted read-write at `dir` and selected by `env`, so what one stage compiled another
   * with the same sources finds (a stage's base is mostly the previous stage's merge). Only a cache
   * whose entries are keyed by the hash of their inputs and safe for concurrent writers qualifies. Never
   * given to an agent's sandbox, whose code could write entries the gold runs would then trust.
   */
  sharedCache?: {
    dir: string;
    env: Record<string, string>;
    /** The image's own cache (warmed by its setup), copied in once per image. */ seedFrom?: string;
    /**
     * A directory of the image replaced by a link to `dir` in each gold sandbox, for a tool whose cache
     * no variable moves (cargo keeps rustc's incremental state under its target directory).
     */
    link?: string;
  };
  /**
   * Fetched dependencies kept out of the image, for an ecosystem whose local store is addressed by
   * coordinates and only ever added to (Maven's local repository, Go's module cache): each fetch's
   * `from` (below the fetch's directory) joins one store per repository history on the host (store.ts), mounted
   * read-only at `dir` in builds and in every sandbox of the environment, gold and agent alike. The
   * image then holds the toolchain and setup only, so its key leaves the packages out: stages whose
   * dependencies differ share one image, each finding its own in the store. Files named by `leaveOut`
   * are not added (a resolver's bookkeeping that would tie entries to the host's repository ids).
   */
  dependencyStore?: { dir: string; from: string; leaveOut?: RegExp };
  /** With withMerged 'separate': setup lines that install the merge's resolution (DEPS_MOUNT/merged) beside the base's. */
  mergedSetup?: string[];
  /** With withMerged 'separate': directories put first on PATH for a test run after a change, where the merge's resolution is installed. */
  mergedPath?: string[];
  /** A manifest's text with what does not decide dependencies taken out (the project's own version): what the fetch is keyed on. */
  dependencyText?(path: string, text: string): string;
  /** Bumped when the fetcher resolves differently: cached fetches (and the images built from them) keyed on an older one are not reused. */
  fetchRevision?: number;
  /** What else decides the fetch besides manifests and date (a GOPATH-era repository's import path and lock files): part of its key. */
  fetchKey?: string[];
  /** Built instead where this recipe's toolchain is too old for what it resolved (ToolchainTooOld, from the fetch or `tooOld`). */
  fallback?: LanguageRecipe<L, R, T>;
  /** Build output that says the toolchain is too old (a fetch cached before its own check could not tell). */
  tooOld?: RegExp;
  /**
   * The registry packages a failed build's output says do not compile on the toolchain, which is newer than
   * their release (a crate of 2017 that today's borrow checker refuses): fetched again with those raised to
   * their newest releases the manifests allow (FetchContext.raise), and built again. Empty where none.
   */
  stale?(buildOutput: string): string[];
  /**
   * Where a failed build's output shows the project needs a toolchain no recipe here provides (a
   * setup.py that converts Python 2 code as it builds), why: the stage is `unsupported`, not a build
   * that failed.
   */
  unsupported?(buildOutput: string): string | undefined;
  /** Test requirements the stage's PR adds that its base does not declare, installed too (its tests need them); part of the image key. */
  prAdds?: string[];
  /** Shell lines run once in the build container in the repository at its base (/work/repo, a tmpfs the image does not keep: install outside it), network none, DEPS_MOUNT mounted. */
  setup: string[];
  /**
   * What a build of this recipe reuses from an earlier era's image of the same repository and
   * toolchain, which it then starts from instead of the toolchain image (its setup must therefore
   * run on such an image as well as on a fresh one). Absent: every build starts from the toolchain.
   */
  reuse?: string;
  /** Environment variables baked into the image (e.g. GOFLAGS, CARGO_HOME, GOPROXY=off). */
  env: Record<string, string>;
  /** Directories put in front of PATH in the image. */
  path: string[];
  /** Where the project's commands must run, where not the checkout (a GOPATH-era Go repository's link in GOPATH): told to the agent. */
  workDir?: string;
  runner: R;
  /** A configured test command that replaces the runner's own. */
  test?: string;
}

/** What a configured recipe that names manifests to resolve takes from its language (LanguageSupport.resolveConfigured). */
export type ConfiguredFetch<L extends string = string, R extends string = string, T extends string = string> = Required<
  Pick<LanguageRecipe<L, R, T>, 'fetch'>
> &
  Pick<LanguageRecipe<L, R, T>, 'fetchRevision' | 'dependencyText' | 'pinned'>;

/** Runs the tests that check a PR and reads per-test outcomes from what the command printed. */
export interface TestRunner<R extends string = string> {
  name: R;
  /**
   * The shell command, run at /work, for the PR's test files (all tests where the runner cannot narrow
   * to them); it prints everything `parse` needs to stdout (e.g. cats Surefire XML reports at its end).
   */
  command(testFiles: string[], override?: string): string;
  /**
   * A command that runs the same tests again right after a run of `command(testFiles)` in the same
   * sandbox (a stability rerun), leaving out build work that run already did; it falls back to the
   * full command by itself wherever it cannot show that the tree and the test configuration are the
   * ones that run had. Absent: the full command again.
   */
  rerun?(testFiles: string[]): string;
  /** Per-test outcomes with ids stable across runs of the same tests; undefined when none were reported. */
  parse(output: string): TestCase[] | undefined;
  /** Whether a configured test command runs this runner's tool (then its report is read, and the command is kept for detected projects). */
  runs?(command: string): boolean;
  /** Which of a PR's test files the runner can be given, and what those are ('Python files pytest could run'); absent: any. */
  selects?: { files(files: string[]): string[]; described: string };
  /** The tool's one-line reason for a failing test, where it prints one, for the feedback on a failed stage. */
  failureLine?(output: string, id: string): string | undefined;
  /**
   * Where a run's output shows that the project's own code cannot be read by the environment's
   * toolchain at all (a Python 2 module under Python 3), what it says: no test could pass on any
   * change, and only a toolchain this host lacks would run them.
   */
  toolchainMismatch?(output: string): string | undefined;
  /**
   * Where a run's output says tests were skipped rather than run, the first skip's reason as the tool
   * prints it (a test module marked for another platform): for a run whose tests all skipped.
   */
  skipReason?(output: string): string | undefined;
}

/** What a detector is given besides the base's files. */
export interface DetectContext<S = unknown> {
  /** The files at the stage's PR merge, where the detector may read what the PR adds. */
  merged?: RepoFiles;
  /** The stage's base commit date; a git call, so read only by a detector that needs it. */
  baseDate(): Promise<Date>;
  /**
   * The clone and the base commit the files are read from, for a detector that reads beyond the root
   * (Python's CI files), and the PR's merge commit; absent on files without a clone.
   */
  repo?: { path: string; sha: string; merge?: string };
  /** The chain's repository name ('owner/name'), for a detector that derives a name from it (Go's import path before go.mod). */
  repoName?: string;
  /** The config's environments section, where a language reads its own settings. */
  settings: S;
}

/**
 * Everything chainsmith knows of one language: one object per folder under languages/, listed once in
 * languages/index.ts. `L` is its name on recipes and manifests, `R` its runners' names, `T` its toolchain
 * images' names (images/toolchains/T), `S` the settings it reads from the config.
 */
export interface LanguageSupport<
  L extends string = string,
  R extends string = string,
  T extends string = string,
  S = unknown,
> {
  name: L;
  /** How the agent's system prompt names the language ('C/C++'). */
  title: string;
  /** The root files the detector looks for, for the message of a repository no language recognises. */
  layouts: readonly string[];
  /** The recipe for a repository at one commit, or undefined where the layout is not this language's. */
  detect(files: RepoFiles, ctx: DetectContext<S>): Promise<LanguageRecipe<L, R | ExitCode, T> | undefined>;
  runners: { readonly [K in R]: TestRunner<K> };
  /** Each toolchain image the language builds on, with the command that reports its version there (recorded on the manifest). */
  toolchains: { readonly [K in T]: string };
  /** How the miner tells the language's files apart: test files by name, code by extension. */
  files: {
    tests: readonly RegExp[];
    testDirectories?: readonly string[];
    code: readonly string[];
    /**
     * The items of a code file that only test builds compile (Rust's `#[cfg(test)] mod tests`): unit
     * tests kept beside the code, which a PR changes with it (inline-tests.ts). Undefined where the
     * file cannot be read so.
     */
    inlineTests?(source: string): Span[] | undefined;
  };
  /**
   * A toolchain built from an installation on the host (a CPython prefix): its recipe under images/
   * (build.sh BASE TAG PREFIX), what identifies a prefix's build, and the build output that says the
   * installation cannot run in the image (not worth a retry).
   */
  hostToolchain?: { recipe: string; fingerprint(prefix: string): string; unrunnable: RegExp };
  /**
   * The host-side fetch of a recipe the config (environments.repos) or the setup agent gives, for the
   * manifests it names to resolve (`resolve`): the same fetcher detection's recipes use, given those
   * files, filling DEPS_MOUNT for the recipe's own setup to install from offline. Absent: a configured
   * recipe of this language cannot ask for a fetch.
   */
  resolveConfigured?(manifests: string[]): ConfiguredFetch<L, R, T>;
  /**
   * On the one language whose toolchain is the base image: where nothing is detected (or a configured
   * recipe names no toolchain) the stage builds on it, and runs this test command unless one is configured.
   */
  base?: { toolchain: T; testCommand: string };
}
