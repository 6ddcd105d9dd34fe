/** Words bash reads as themselves in an argument: left bare, so commands in logs and reports stay readable. */
const PLAIN = /^[\w@%+=:,./-]+$/;

/**
 * `s` as one word of a bash command line: bare where nothing in it is special, else in single quotes
 * (inside which nothing is special; a quote itself is closed, escaped and reopened). For arguments,
 * not the command word (a bare `A=b` there would be an assignment).
 */
export function shellQuote(s: string): string {
  return PLAIN.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
