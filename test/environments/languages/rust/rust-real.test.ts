import { realTest, validateReal as validate } from '../../../support/real-validation';

/**
 * Rust from a real repository (serde_json): crates vendored on the host, cargo's per-test results.
 * #956 adds a regression test of its own target, so the validation compiles that small target, not
 * serde_json's large tests/test.rs under several feature sets (which language-runners.test.ts covers).
 */
realTest('serde-rs+json')(
  "serde_json #956: crates vendored for rustc 1.63 as of the manifests' date, the PR's new regression test fails before and passes after",
  async () => {
    const { env, gold } = await validate('serde-rs+json', 'serde-rs/json', 956, 'master');
    expect(env).toMatchObject({ language: 'rust', runner: 'cargo', recipe: { origin: 'rust-cargo' } });
    expect(env.manifest.toolchain.version).toMatch(/^rustc 1\.63\.0/);
    expect(env.manifest.resolution).toMatchObject({ ecosystem: 'crates', lock: 'resolved' });
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo' });
    expect(gold.failToPass).toEqual(['regression::regression::issue953::test']);
    // The regression tests already at the base pass before and after.
    expect(gold.passToPass).toEqual(
      expect.arrayContaining(['regression::regression::issue520::test', 'regression::regression::issue795::test']),
    );
  },
  40 * 60_000,
);
