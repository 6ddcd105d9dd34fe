/**
 * Why a failed build needs a nightly rustc, where it stopped at E0554 (`#![feature]` may not be used on
 * the stable release channel) in the project's own code, or at NIGHTLY_ONLY's check of the crates it
 * compiles (detect.ts): no toolchain image here is a nightly, so the stage is `unsupported`, as a
 * crate of before Rust 1.0 (`#![feature(macro_rules)]`) is on any stable rustc. Not where rustc points
 * into the vendored directory: a dependency that fails so may compile at its newest release (stale.ts).
 */
export function needsNightly(output: string, vendorDir: string): string | undefined {
  const lines = output.split('\n');
  for (const [i, line] of lines.entries()) {
    const e = /^error\[E0554\]: (.*)$/.exec(line);
    if (!e) continue;
    const at = /^\s*--> (\S+?):\d+/.exec(lines[i + 1] ?? '')?.[1];
    if (at?.startsWith(`${vendorDir}/`)) continue;
    return at
      ? `rustc's stable release refuses \`#![feature]\` in ${at} (E0554): the crate needs a nightly rustc`
      : e[1];
  }
  return undefined;
}
