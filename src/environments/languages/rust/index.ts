import type { LanguageSupport } from '../../contract';
import { cargoRunner } from './cargo';
import { detectRust } from './detect';
import { rustTestItems } from './test-items';

const CARGO_PROBE = 'rustc --version; cargo --version';

/** Rust: crates vendored on the host (detect.ts), tested with cargo test; 'rust-web' is the newer rustc a newer dependency graph needs. */
export const rust: LanguageSupport<'rust', 'cargo', 'rust' | 'rust-web'> = {
  name: 'rust',
  title: 'Rust',
  layouts: ['Cargo.toml'],
  detect: (files) => detectRust(files),
  runners: { cargo: cargoRunner },
  toolchains: { rust: CARGO_PROBE, 'rust-web': CARGO_PROBE },
  // `tests.rs` and `test.rs` are a crate's unit tests kept beside their module (`#[cfg(test)] mod tests;`).
  files: { tests: [/^tests?\.rs$/], code: ['rs'], inlineTests: rustTestItems },
};
