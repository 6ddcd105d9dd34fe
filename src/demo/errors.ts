import { InputError } from '../errors';

/** The target directory holds something other than a demo repository, so it is not deleted. */
export class DemoDirectoryError extends InputError {
  constructor(
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(`refusing to replace ${path}: it is neither empty nor a chainsmith demo repository`, options);
  }
}
