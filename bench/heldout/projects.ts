/**
 * Real projects nobody here has tuned on, taken from the package registries: their releases as packaged,
 * or, for a project of another language than Go named by its GitHub repository (`github.com/OWNER/NAME`),
 * the repository's tree at its last semver tags, read from a snapshot the search tool's `fetch` made
 * (heldout.ts, fetchOf; GitHub itself is out of reach, and the Go module proxy serves Go modules alone). Chosen before any was run, by one rule: libraries in wide use
 * whose published sources carry their test suites, small enough to validate in minutes; nothing was
 * added, dropped or reordered after seeing an outcome. Each list alternates `tune` and `report`: the
 * code may be changed for what the tune half shows; the report half's figures are the ones reported,
 * and nobody reads its stages one by one while changing the code.
 */
export type Split = 'tune' | 'report';

export interface HeldOutProject {
  /**
   * The registry's name (a PyPI project, a Go module path, a crate, groupId:artifactId, or
   * groupId:artifactId:source-release for a project's source tree), or `github.com/OWNER/NAME`.
   */
  name: string;
  split: Split;
}

const alternate = (names: string[]): HeldOutProject[] =>
  names.map((name, i) => ({ name, split: i % 2 === 0 ? 'tune' : 'report' }));

export const PROJECTS: Record<'python' | 'go' | 'rust' | 'java' | 'c', HeldOutProject[]> = {
  python: alternate([
    'attrs',
    'click',
    'more-itertools',
    'idna',
    'python-dateutil',
    'pluggy',
    'sqlparse',
    'cachetools',
    'tabulate',
    'itsdangerous',
    // Wave 2 (session 24), chosen before any run: libraries in wide use whose latest sdist ships its tests, each on a
    // build backend or layout not yet listed (poetry-core, a lone root module, flit_core, a C extension).
    'tomlkit',
    'six',
    'packaging',
    'markupsafe',
    // Wave 3 (session 26), chosen before any run: widely used Python libraries on GitHub whose snapshot (the search
    // tool's fetch; the Go proxy served none of them) has >= 3 semver tags, each of a shape the list lacks: a src/
    // layout with tox.ini, a C extension with requirements/, flit, poetry with poetry.lock, hatch with uv.lock and
    // noxfile.py, pdm with pdm.lock and noxfile.py, setuptools_scm with tox.ini, requirements.txt with src/.
    'github.com/Pylons/waitress',
    'github.com/aio-libs/multidict',
    'github.com/Textualize/rich',
    'github.com/executablebooks/markdown-it-py',
    'github.com/frostming/marko',
    'github.com/python-jsonschema/jsonschema',
    'github.com/theskumar/python-dotenv',
    'github.com/pytest-dev/pytest-mock',
  ]),
  go: alternate([
    'github.com/google/uuid',
    'github.com/spf13/pflag',
    'github.com/sirupsen/logrus',
    'github.com/BurntSushi/toml',
    'github.com/gorilla/mux',
    'github.com/mattn/go-isatty',
    'github.com/fatih/color',
    'github.com/urfave/cli/v2',
    'github.com/go-chi/chi/v5',
    'gopkg.in/yaml.v3',
    // Wave 2 (session 24), by the same rule, for shapes the first wave lacks: modules of several packages,
    // modules whose tests import other modules, golden files under testdata, and cgo.
    'github.com/stretchr/testify',
    'github.com/google/go-cmp',
    'github.com/dustin/go-humanize',
    'github.com/gorilla/websocket',
    'github.com/rs/zerolog',
    'github.com/shopspring/decimal',
    'github.com/golang-jwt/jwt/v5',
    'github.com/mattn/go-sqlite3',
  ]),
  rust: alternate([
    'semver',
    'bitflags',
    'smallvec',
    'either',
    'hex',
    'base64',
    'once_cell',
    'anyhow',
    // Wave 2 (s24): widely used crates whose last `.crate` ships tests, each of a shape the list lacked
    // (edition 2024/2015, proc-macro with build.rs, no packaged Cargo.lock, dev-dependencies on crates, no_std).
    'indexmap',
    'lazy_static',
    'paste',
    'proc-macro2',
    'strsim',
    'memchr',
    // Wave 3 (s26), chosen before any run: GitHub repositories with a Cargo.toml at the root whose last three semver tags
    // the host's Go proxy lists. It serves only what Go projects depend on: of 45 Rust repositories asked it refused 41
    // (rayon, url, chrono, serde, bytes, clap, …) and listed fewer than three tags for 3, so the wave is one polyglot
    // crate (a C core with Go bindings: build.rs, `[lib] path`, a committed Cargo.lock, test vectors under tests/).
    'github.com/ethereum/c-kzg-4844/v2',
    // Wave 4 (s36), chosen before any run: crates.io's most downloaded crates of all time, in that order as the session
    // knew it (syn, hashbrown, quote, libc, rand_core, cfg-if, rand, serde, regex-syntax, unicode-ident, autocfg, regex,
    // serde_derive, getrandom, parking_lot_core, …), leaving out those listed above, those done as whole histories
    // (bench/README.md; quote, aho-corasick, http-body) and those whose newest `.crate` ships no test (no tests/ and no
    // `#[test]` under src/): the first 14. The list's length being odd, the wave starts on the report side.
    'syn',
    'hashbrown',
    'libc',
    'rand_core',
    'cfg-if',
    'rand',
    'serde',
    'regex-syntax',
    'unicode-ident',
    'autocfg',
    'regex',
    'serde_derive',
    'getrandom',
    'parking_lot_core',
    // Wave 5 (s40), chosen before any run by wave 4's rule, continued: the crates that follow in that ranking as this
    // session knew it (itoa, ryu, log, num-traits, parking_lot, lock_api, scopeguard, cc, thiserror, thiserror-impl,
    // heck, unicode-width, rustix, linux-raw-sys, errno, fastrand, …), leaving out those whose newest `.crate` ships no
    // test (thiserror-impl, linux-raw-sys): the first 14. The list so far being odd, the wave starts on the report side.
    'itoa',
    'ryu',
    'log',
    'num-traits',
    'parking_lot',
    'lock_api',
    'scopeguard',
    'cc',
    'thiserror',
    'heck',
    'unicode-width',
    'rustix',
    'errno',
    'fastrand',
  ]),
  // Maven Central's artifacts that publish their tests (`test-sources`): Apache Commons, one build family.
  java: alternate([
    'org.apache.commons:commons-csv',
    'org.apache.commons:commons-text',
    'commons-cli:commons-cli',
    'commons-codec:commons-codec',
    'org.apache.commons:commons-collections4',
    'org.apache.commons:commons-lang3',
    // Wave 2 (session 24), chosen before any run: artifacts outside Apache Commons whose last three listed releases each
    // serve `sources` and `test-sources` through the host's Maven (2 of the 22 checked; the rest lack `test-sources` or
    // the listing's newest is not served), in alphabetical order: a parent of Apache's own, and a POM with none (Java 21).
    'org.apache.datasketches:datasketches-hive',
    'org.apache.datasketches:datasketches-memory',
    // Wave 3 (session 26), chosen before any run: project roots outside Apache Commons whose last three listed releases
    // each serve a `source-release` zip (the project's whole tree) through the host's Maven, 7 of 17 checked, in
    // alphabetical order: multi-module reactors (curator, johnzon, xbean) and single modules, an OSGi bundle, a
    // non-Apache parent (plexus).
    'org.apache.curator:apache-curator:source-release',
    'org.apache.felix:org.apache.felix.framework:source-release',
    'org.apache.johnzon:johnzon:source-release',
    'org.apache.maven.shared:maven-shared-utils:source-release',
    'org.apache.santuario:xmlsec:source-release',
    'org.apache.xbean:xbean:source-release',
    'org.codehaus.plexus:plexus-utils:source-release',
    // Wave 4 (session 36), chosen before any run: a build family the list lacks, Maven's own plugins (a plugin
    // descriptor, Maven's APIs as provided dependencies, the plugin testing harness, invoker ITs beside unit tests).
    // The org.apache.maven.plugins rows of the environment's maven-partial.tsv, in its (alphabetical) order, kept where
    // the plugin is its project's root, its last three listed releases each serving a `source-release` zip through the
    // host's Maven (16 of 24; the 8 others are modules of a reactor and serve none): the first 12.
    'org.apache.maven.plugins:maven-antrun-plugin:source-release',
    'org.apache.maven.plugins:maven-assembly-plugin:source-release',
    'org.apache.maven.plugins:maven-checkstyle-plugin:source-release',
    'org.apache.maven.plugins:maven-clean-plugin:source-release',
    'org.apache.maven.plugins:maven-compiler-plugin:source-release',
    'org.apache.maven.plugins:maven-dependency-plugin:source-release',
    'org.apache.maven.plugins:maven-help-plugin:source-release',
    'org.apache.maven.plugins:maven-invoker-plugin:source-release',
    'org.apache.maven.plugins:maven-jar-plugin:source-release',
    'org.apache.maven.plugins:maven-javadoc-plugin:source-release',
    'org.apache.maven.plugins:maven-pmd-plugin:source-release',
    'org.apache.maven.plugins:maven-resources-plugin:source-release',
  ]),
  // C has no registry of releases here: its projects are GitHub repositories, read from snapshots (heldout.ts,
  // fetchOf). Session 26, chosen before any run: widely used C/C++ libraries whose last three semver tags the host's
  // Go proxy listed (6 of the 48 repositories asked; none with a plain Makefile was served), ordered so each half
  // holds a C CMake library and another build system: CMake, meson, autotools, C++ on CMake. The proxy served their
  // trees for the session's first runs; it serves Go modules alone, so they are read from snapshots since.
  c: alternate([
    'github.com/libuv/libuv',
    'github.com/madler/zlib',
    'github.com/fribidi/fribidi',
    'github.com/libffi/libffi',
    'github.com/google/googletest',
    'github.com/akheron/jansson',
  ]),
};

/** Releases taken from each project: the last this many, oldest first; consecutive ones make a stage. */
export const RELEASES = 3;
