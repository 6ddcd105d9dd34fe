import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JAVAC_PROPERTY } from './skip-extension';

/**
 * The host's fetch needs what `mvn test` resolves (plugins with their own dependencies, the project's
 * dependencies, Surefire's provider and booter), not the project's classes: compiling jsoup's main and
 * test sources was 9 of a fetch's 17.5 CPU-seconds. Maven is told to fork its compiler through
 * a stub, which compiles nothing and leaves one empty class (CLASS_NAME) in each output directory:
 * the compiler plugin still resolves and configures itself as for a real compile (its annotation
 * processor paths included), and Surefire, finding a test class, resolves its provider and starts its
 * fork as it would (it resolves nothing where no test class exists). The Maven extension puts the stub
 * in place of a compiler configuration's own fork and executable too (skip-extension.ts).
 * Where anything in the build fails on the missing classes, the fetch runs again with the real compile
 * (detect.ts), so nothing a full fetch would fetch is missed.
 */
export const CLASS_NAME = 'chainsmith/ResolveOnly';

/**
 * `package chainsmith; public class ResolveOnly {}` as a class file (Java 8's format, which every JDK
 * since reads): no methods, so no test framework finds a test in it. In a package of its own, not the
 * default package, which OSGi's bnd (maven-bundle-plugin, before its skip property) refuses.
 */
export function emptyClass(): Buffer {
  const utf8 = (s: string) => Buffer.concat([Buffer.from([1, s.length >> 8, s.length & 255]), Buffer.from(s)]);
  return Buffer.concat([
    Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0, 5]), // magic, minor 0, major 52, 4 constants
    Buffer.from([7, 0, 2]), // #1 this class, named by #2
    utf8(CLASS_NAME),
    Buffer.from([7, 0, 4]), // #3 super class, named by #4
    utf8('java/lang/Object'),
    Buffer.from([0, 0x21, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0]), // public super; this, super; no interfaces, fields, methods, attributes
  ]);
}

/**
 * The stub: `-version` goes to the JDK's javac (plexus-compiler asks it which options it takes); any
 * other call writes the empty class into the output directory (`-d`, on the command line or in the
 * @argfile plexus-compiler writes, one quoted option a line) and succeeds.
 */
export const STUB_JAVAC = String.raw`#!/bin/sh
# chainsmith: a javac that compiles nothing (stub-javac.ts).
case "$1" in -version|--version|-fullversion) exec "${'$'}{JAVA_HOME:+${'$'}JAVA_HOME/bin/}javac" "$@" ;; esac
out=
prev=
for a do
  case "$a" in @*) d=$(sed -n '/^"\{0,1\}-d"\{0,1\}$/{n;p;q}' "${'$'}{a#@}" | tr -d '"'); [ -n "$d" ] && out=$d ;; esac
  [ "$prev" = -d ] && out=$a
  prev=$a
done
[ -n "$out" ] && mkdir -p "$out/${CLASS_NAME.split('/')[0]}" && printf '${[...emptyClass()].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}' > "$out/${CLASS_NAME}.class"
exit 0
`;

/** The properties that make Maven fork its compiler through the stub at `path`. */
export function stubProperties(path: string): Record<string, string> {
  return { 'maven.compiler.fork': 'true', 'maven.compiler.executable': path, [JAVAC_PROPERTY]: path };
}

/** Writes the stub into `dir` (a scratch directory of the fetch); the properties that make Maven use it. */
export async function stubCompiler(dir: string): Promise<Record<string, string>> {
  const stub = join(dir, '.chainsmith-stub-javac');
  await writeFile(stub, STUB_JAVAC, { mode: 0o755 });
  return stubProperties(stub);
}
