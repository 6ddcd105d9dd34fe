import type { LanguageSupport } from '../../contract';
import { cargoRunner } from './cargo';
import { detectRust } from './detect';
import { hostRust, sysrootFingerprint } from './host-rust';
import { gitDirectory } from './workspace';
import { rustTestItems } from './test-items';

const CARGO_PROBE = 'rustc --version; cargo --version';

/**
 * Rust: crates vendored on the host (detect.ts), tested with cargo test; 'rust-web' is the newer rustc a
 * newer dependency graph needs, and the host's own stable rustc, copied into it (images/host-rust), the
 * newest where the host's is newer still.
 */
export const rust: LanguageSupport<'rust', 'cargo', 'rust' | 'rust-web'> = {
  name: 'rust',
  title: 'Rust',
  layouts: ['Cargo.toml'],
  detect: async (files, ctx) =>
    detectRust(files, ctx.repo && gitDirectory(ctx.repo.path, ctx.repo.sha), {
      ...(ctx.merged ? { merged: ctx.merged } : {}),
      host: await hostRust(),
      baseDate: ctx.baseDate,
    }),
  runners: { cargo: cargoRunner },
  toolchains: { rust: CARGO_PROBE, 'rust-web': CARGO_PROBE },
  // `tests.rs` and `test.rs` are a crate's unit tests kept beside their module (`#[cfg(test)] mod tests;`);
  // `.snap` files are insta's snapshots (`src/snapshots/crate__module__name.snap`), the expected output its
  // tests compare with: a PR that changes what its code prints changes them, as it would an assertion.
  files: { tests: [/^tests?\.rs$/, /\.snap$/], code: ['rs'], inlineTests: rustTestItems },
  hostToolchain: {
    recipe: 'host-rust',
    fingerprint: sysrootFingerprint,
    unrunnable: /lacks libraries|does not run in the image/,
  },
};
