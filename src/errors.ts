import type { StageReason } from './schemas/stage-reason';

/** Base of every error chainsmith raises on purpose; `permanent` ones must not be retried. */
export class ChainsmithError extends Error {
  readonly permanent: boolean = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The user gave us something we cannot use: a bad config value, a path, a file. */
export class InputError extends ChainsmithError {}

export class ConfigError extends InputError {}

/**
 * A patch or carry that cannot be applied to a stage, an environment that cannot be resolved or built:
 * the stage fails, other stages and chains go on. `reason`, where the thrower knows it, is the stage's
 * typed reason (its kind, the failing command, its exit code and last lines).
 */
export class StageError extends ChainsmithError {
  readonly reason?: StageReason;
  constructor(message: string, options?: { cause?: unknown; reason?: StageReason }) {
    super(message, options);
    if (options?.reason) this.reason = options.reason;
  }
}

/** A stage's environment cannot build on its recipe's toolchain: what it resolved needs a newer one (the recipe's fallback may have it). */
export class ToolchainTooOld extends StageError {}

/**
 * A stage's environment did not build because registry packages it resolved do not compile on the toolchain,
 * which is newer than their release (LanguageRecipe.stale): `packages` are to be raised and the build tried again.
 */
export class StaleDependencies extends StageError {
  constructor(
    message: string,
    readonly packages: string[],
    options?: { cause?: unknown; reason?: StageReason },
  ) {
    super(message, options);
  }
}

/** Infrastructure hiccups (Docker, model endpoint, disk): worth retrying. */
export class TransientError extends ChainsmithError {
  override readonly permanent = false;
}

/**
 * A tool failed and its output shows no cause we know to be deterministic (nor a registry that did
 * not answer): retried once where it is caught (DependencyCache), and a second such failure is the
 * stage's permanent `reason`. Where nobody retries it, it is a TransientError like any other.
 */
export class UnexplainedFailure extends TransientError {
  constructor(
    message: string,
    readonly reason: StageReason,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
