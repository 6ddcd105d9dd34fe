import { realTest, validateReal as validate } from '../support/real-validation';

/** Rust from a real repository (serde_json): crates vendored on the host, cargo's per-test results. Slow: rustc on one core. */
realTest('serde-rs+json')(
  "serde_json #982: crates vendored for rustc 1.63 as of the manifests' date, the PR's new test fails before and passes after",
  async () => {
    const { env, gold } = await validate('serde-rs+json', 'serde-rs/json', 982, 'master');
    expect(env).toMatchObject({ language: 'rust', runner: 'cargo', recipe: { origin: 'rust-cargo' } });
    expect(env.manifest.toolchain.version).toMatch(/^rustc 1\.63\.0/);
    expect(env.manifest.resolution).toMatchObject({ ecosystem: 'crates', lock: 'resolved' });
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo' });
    expect(gold.failToPass).toEqual(['test::test_integer128_to_value']);
    expect(gold.passToPass.length).toBeGreaterThan(60);
  },
  40 * 60_000,
);
