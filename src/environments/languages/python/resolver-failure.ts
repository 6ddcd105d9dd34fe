import { StageError, TransientError, UnexplainedFailure } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import type { ToolRun } from '../../host-tools';
import { convertsPython2 } from './python2-build';

/** A requirement from a version-control URL no resolver here can fetch: pip's old `git://` and `svn+`, `hg+`, `bzr+` forms. */
const UNSUPPORTED_SCHEME =
  /Unsupported URL prefix|Unsupported Git URL scheme|(^|[\s=@])(git|svn|hg|bzr)(\+[a-z]+)?:\/\/|(^|[\s=@])(svn|hg|bzr)\+/im;
/** The project asks for a Python none of the provided ones is (uv names the requested version). */
const NO_PYTHON =
  /requested Python version|requires-python|no interpreter found|Python >=? ?[0-9.]+ .*(is not|not) (available|installed)/i;
/** The resolver could not reach a registry: another try may work. */
const UNREACHABLE =
  /error sending request|dns error|tcp connect error|Connection (refused|reset)|connection closed|timed out|Temporary failure in name resolution|Network is unreachable|\b(HTTP|status)( code)?:? ?(429|50[0-4])\b|Too Many Requests|Internal Server Error|Service Unavailable|Bad Gateway|Gateway Time-?out|Max retries exceeded|NewConnectionError|ReadTimeoutError|ConnectTimeoutError|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN/i;

/**
 * Output that names a cause the same inputs meet on every try: no version satisfies the requirements,
 * a requirement or version that does not parse, a package the registry does not have, a source
 * distribution whose build fails, a build backend that fails on the project's own metadata, a Python
 * the package does not support.
 */
const DETERMINISTIC =
  /No solution found|we can conclude|cannot be used|Couldn't parse|Failed to parse|Expected (package name|version|one of)|not found in the (package )?registry|No matching distribution|Could not find a version that satisfies|ResolutionImpossible|conflicting dependencies|Failed to (build|prepare distributions|download and build)|invalid (requirement|version|specifier|marker)|is not a valid|requires a different Python|build backend returned an error/i;

/**
 * The resolver's output up to where it quotes a build backend's (uv's `[stderr]`/`[stdout]`, pip's
 * `[N lines of output]`), so that advice a backend prints (setuptools_scm's "use git+https://…#egg=proj"
 * when it finds no version) is not taken for a requirement of that scheme.
 */
const resolverOwn = (output: string) => output.split(/^.*(?:\[std(?:err|out)\]|lines of output\]).*$/m)[0];

/**
 * What a resolver's failure means for the stage. A requirement line that does not parse, a URL scheme
 * it does not support or a Python that cannot be had fails the same way on every try: a permanent
 * StageError with the stage's reason (`unsupported` or `dependencies-unresolvable`). Only a registry
 * that did not answer is worth a retry (TransientError). Anything else is the stage's permanent reason
 * (`dependencies-unresolvable`) only where the output shows a deterministic cause (DETERMINISTIC);
 * an unexplained failure is an UnexplainedFailure, which the dependency cache retries once and makes
 * permanent on the second. `shown` is the command as the reason shows it (without the host's temporary paths).
 */
export function resolverFailure(what: string, shown: string, run: ToolRun, detail = ''): StageError | TransientError {
  const output = `${run.stdout}\n${run.stderr}`.trim();
  // The tool did not run at all (not installed, or stopped): nothing about the stage is known.
  if (run.code === -1)
    return new TransientError(`${what}: ${shown.split(' ')[0]} did not run: ${output.split('\n').pop()}`);
  const last = output.split('\n').slice(-25).join('\n');
  const failed = { command: shown, exitCode: run.code, output };
  if (UNSUPPORTED_SCHEME.test(resolverOwn(output))) {
    return new StageError(`${what}: a requirement names a URL scheme it cannot fetch:\n${last}`, {
      reason: stageReason(
        'unsupported',
        `${what}: a requirement names a version-control URL scheme that cannot be fetched (git://, svn+, hg+, bzr+)`,
        failed,
      ),
    });
  }
  if (NO_PYTHON.test(output)) {
    return new StageError(`${what}: the Python it needs cannot be had:\n${last}`, {
      reason: stageReason('unsupported', `${what}: the project needs a Python that cannot be had here`, failed),
    });
  }
  const python2 = convertsPython2(output);
  if (python2)
    return new StageError(`${what}: ${python2}:\n${last}`, {
      reason: stageReason('unsupported', `${what}: ${python2}`, failed),
    });
  if (UNREACHABLE.test(output) && !/Couldn't parse|No solution found/i.test(output))
    return new TransientError(`${what} could not reach a package registry:\n${last}`);
  const summary = /Couldn't parse requirement/i.test(output)
    ? `${what}: a requirement line does not parse`
    : `${what}${detail}`;
  const reason = stageReason('dependencies-unresolvable', summary, failed);
  if (!DETERMINISTIC.test(output))
    return new UnexplainedFailure(`${summary} (no known cause in its output; worth one more try):\n${last}`, reason);
  return new StageError(`${summary}:\n${last}`, { reason });
}
