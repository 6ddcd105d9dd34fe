/**
 * A database, cache or broker the tests tried to reach (sandboxes have no network and run no
 * services), as its client says so on one line.
 */
const SERVICE_FAILURE =
  /(could not connect to server|connection to server at .* failed|Can't connect to (local )?MySQL server|Error 111 connecting to|dial tcp [^\n]*:(5432|3306|6379|27017|9092|5672|9200)\b|ECONNREFUSED [^\s]*:(5432|3306|6379|27017|9092|5672|9200)\b|Cannot connect to the Docker daemon)[^\n]*/i;

/**
 * A server program the tests start that the image lacks, as the shell says so (`test.sh: 70:
 * redis-server: not found`, `mysqld: command not found`): a harness that runs its own server for the
 * tests, which the sandbox cannot.
 */
const SERVER_MISSING = /\b[\w.-]*(server|mysqld|postgres|mongod|memcached)\b: (command )?not found/;
/** A connection the system refused (ECONNREFUSED, errno 111), in any client's words. */
const REFUSED = /connection refused|ECONNREFUSED/i;
/** A local endpoint: the loopback by name or address, or a unix socket's path. */
const LOCAL = /\b(localhost|127\.0\.0\.1)\b|\[::1\]|\/[\w./-]*\.sock(et)?\b|\bunix[ _-]?(domain[ _-])?socket\b/i;
/** How many lines before a refusal may name where the client connected: a test that says where, then the error. */
const LOOKBACK = 2;

/**
 * The line that says the PR's tests needed a service, for a stage's reason; undefined when the output
 * shows none. Besides the known clients' messages, a server program not found, and a refused connection to a local endpoint, named on
 * its line or on one of the two before it (a test that prints where it connects, then the error, as C
 * clients do): nothing listens on the sandbox's loopback unless a test started it. A refusal that
 * names no local endpoint is the project's own connection test, not a service.
 */
export function serviceNeeded(output: string): string | undefined {
  const known = SERVICE_FAILURE.exec(output)?.[0];
  if (known) return known.trim().slice(0, 160);
  const missing = SERVER_MISSING.exec(output)?.[0];
  if (missing) return missing;
  const lines = output.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!REFUSED.test(lines[i])) continue;
    const from = lines.slice(Math.max(0, i - LOOKBACK), i + 1).findIndex((line) => LOCAL.test(line));
    if (from < 0) continue;
    const shown = lines.slice(Math.max(0, i - LOOKBACK) + from, i + 1).map((line) => line.trim().slice(0, 100));
    return shown.join(' ⏎ ');
  }
  return undefined;
}
