import { ChainsmithError, InputError } from '../errors';

/** Bad input (a config value, a path, a chains file, an unknown repository): fix it and run again. */
const EXIT_INPUT = 2;
/**
 * Something the command relies on cannot answer now (GitHub's rate limit or an outage, say): the same
 * command will work later, as the message says when. 75 is EX_TEMPFAIL of sysexits.h, which schedulers
 * and retry wrappers already read as "try again later".
 */
const EXIT_RETRY_LATER = 75;

export const EXIT_CODES_HELP = `
Exit codes:
  0   done
  1   a failure that is not your input: a tool or engine failed (the message says which), or a bug
      (printed with its stack)
  ${EXIT_INPUT}   bad input: the message says what to fix
  ${EXIT_RETRY_LATER}  retry later: a service failed in a way another try fixes (GitHub's rate limit or an
      outage); the message says when, and what was already fetched is kept`;

export function exitCodeFor(err: unknown): number {
  if (err instanceof InputError) return EXIT_INPUT;
  if (err instanceof ChainsmithError && !err.permanent) return EXIT_RETRY_LATER;
  return 1;
}
