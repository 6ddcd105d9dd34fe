import { posix } from 'node:path';
import { shellQuote } from '../../../process/shell-quote';

/** How far up a module file's ancestors are read: deeper module trees than any crate here nests. */
const MAX_DEPTH = 6;

/**
 * awk that prints the declaration `mod $m;` of the file it reads with the lines of attributes right above
 * it (`#[cfg(feature = "serde")]`, or one over several lines): what follows a blank line, the end of an
 * item (`;`, `{`, `}`) or an attribute of the parent itself (`#![no_std]`) starts anew.
 */
const DECLARATION = [
  '/^[[:space:]]*$/ || /^[[:space:]]*#!/ { buf = ""; next }',
  '$0 ~ ("^[[:space:]]*(#\\\\[.*\\\\][[:space:]]*)*(pub(\\\\([^)]*\\\\))?[[:space:]]+)?mod[[:space:]]+" m "[[:space:]]*;") { printf "%s%s\\n", buf, $0; buf = ""; next }',
  '/[;{}][[:space:]]*$/ { buf = ""; next }',
  '{ buf = buf $0 "\\n" }',
].join('\n');

/**
 * Shell printing the declarations of the modules a code file belongs to, each with its attributes
 * (DECLARATION), from the module's parent up: `#[cfg(feature = "serde")] mod serde;` in src/lib.rs gates
 * every test in src/serde.rs (uuid #98's serde round trip) as a cfg in the file itself would. A parent
 * is `D.rs` or `D/mod.rs` of the module's directory D, or, at the crate's root, `D/lib.rs` or `D/main.rs`.
 */
export function moduleDeclarations(file: string): string {
  const lines: string[] = [];
  let path = file.replace(/\/mod\.rs$/, '.rs');
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const dir = posix.dirname(path);
    const name = posix.basename(path, '.rs');
    if (dir === '.' || !/^\w+$/.test(name) || ['lib', 'main'].includes(name)) break;
    const parents = [`${dir}.rs`, `${dir}/mod.rs`, `${dir}/lib.rs`, `${dir}/main.rs`].map(shellQuote).join(' ');
    lines.push(`for p in ${parents}; do [ -f "$p" ] && awk -v m=${name} '${DECLARATION}' "$p"; done`);
    path = `${dir}.rs`;
  }
  return lines.join('; ');
}
