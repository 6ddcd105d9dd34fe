import type { ToolRun } from '../../host-tools';

/** Rounds of lifting a resolution's date for what has nothing as of it, the legacy backend's included. */
const MAX_LIFTS = 4;

/**
 * uv reads a setup.py project's metadata by building it in an isolated environment that needs
 * setuptools 40.8.0 (PEP 517's legacy backend, 2019) and runs on the host's Python (uv's venv): a
 * resolution dated earlier has no such setuptools, or one that does not import on that Python, and
 * fails before the project's own requirements are looked at. Such a resolution takes setuptools and wheel (which that setuptools asks for) as of
 * `asOf`, releases that run on the host's Pythons (setuptools 40.8 does not import on 3.11, and a 2016
 * wheel breaks a 2023 setuptools). What the image installs the project with
 * (its build requirements, resolved apart) keeps the era's, unless an sdist among them needs reading too.
 */
const LEGACY_BACKEND = {
  /**
   * No setuptools 40.8 as of the date, or one that fails inside its own modules on the host's Python (2019's
   * does on 3.9+: HTMLParser.unescape), through the legacy backend or setuptools' own (a pyproject.toml
   * that names `setuptools.build_meta`).
   */
  needs: /setuptools>=40\.8\.0|setuptools\.build_meta[\s\S]*site-packages\/setuptools\//,
  asOf: '2024-01-01T00:00:00.000Z',
};

/**
 * An sdist of before 2020 whose setup.py imports setuptools' `Feature`, gone in setuptools 46 (March 2020):
 * the later setuptools of LEGACY_BACKEND cannot read its metadata, setuptools 45 can (and runs on the
 * host's Python). The lift comes down to it. Python 3.7 names the module the name is missing from;
 * 3.6 and before do not (`cannot import name 'Feature'`, and 2.7 without the quotes), and a build on
 * the target's own minor (PythonInputs.interpreter) runs on those. `setuptools.dist` held it too.
 */
const FEATURE_BACKEND = {
  needs: /cannot import name (?:'Feature'|Feature\b)(?! from '(?!setuptools(?:\.\w+)*'))/,
  asOf: '2020-03-01T00:00:00.000Z',
};

/** The lifts of setuptools and wheel, each from where the one before left them (`from`: undefined, the date's own). */
const BACKEND_LIFTS = [
  {
    ...LEGACY_BACKEND,
    from: undefined,
    why: "for the requirements: uv reads setup.py's metadata with PEP 517's legacy backend, which needs setuptools 40.8.0 or later",
  },
  {
    ...FEATURE_BACKEND,
    from: LEGACY_BACKEND.asOf,
    why: "instead: an sdist's setup.py imports setuptools' Feature, which setuptools 46 removed",
  },
];

/**
 * A package uv's date-pinned resolution found no allowed version of, where one was published later:
 * uv's hint names it, with the newest version the requirement allows and when that was published.
 */
export interface LateRelease {
  name: string;
  version: string;
  publishedAt: string;
}

const NO_VERSIONS = /there (?:are|is) no versions? of ([A-Za-z0-9._-]+)/g;
const HINT =
  /`([A-Za-z0-9._-]+)` was filtered by `exclude-newer` to only include packages uploaded before \S+?\. The latest version satisfying the requirement is v?(\S+), published at (\d{4}-\d\d-\d\dT[\d:.]+Z)/g;

/**
 * The packages a failed `uv pip compile --exclude-newer` says were filtered out by the date alone.
 * A release the index no longer serves (atomicwrites' before 1.4.1, deleted and never put back) leaves
 * a requirement of the era nothing to resolve to.
 */
export function lateReleases(stderr: string): LateRelease[] {
  const text = plain(stderr);
  // Only a package of which the date leaves nothing at all: where it leaves older releases (a floor
  // raised past the date), the resolution as of a later date is the caller's to try.
  const none = new Set([...text.matchAll(NO_VERSIONS)].map((m) => m[1]));
  const found = new Map<string, LateRelease>();
  for (const m of text.matchAll(HINT))
    if (none.has(m[1])) found.set(m[1], { name: m[1], version: m[2], publishedAt: m[3] });
  return [...found.values()];
}

/** uv's output as text: its colours (FORCE_COLOR, which a test runner may set) and line wrapping taken out. */
const plain = (stderr: string) => stderr.replace(/\x1b\[[0-9;]*m/g, '').replace(/\s+/g, ' ');

/**
 * `uv pip compile` as of `asOf` (its `--exclude-newer` among the arguments), run again with the date
 * lifted for what has nothing as of it: setuptools and wheel where a setup.py's metadata needs the
 * legacy backend (LEGACY_BACKEND), and a package alone where the requirements allow no release of it
 * that the index serves as of the date (lateReleases), at most MAX_LIFTS times. Each lift is a note;
 * `pins()` are the arguments the lifts added, for a later run and for a failure's command.
 * `backendFloor` (an ISO time after `asOf`) is where setuptools and wheel are resolved as of until a
 * lift moves them: the release of the Python they run on (backendFloor in fetch.ts).
 */
export function datePinned(
  run: (args: string[]) => Promise<ToolRun>,
  asOf: Date,
  notes: string[],
  backendFloor?: string,
) {
  /** The date setuptools and wheel are resolved as of, where a lift moved them (BACKEND_LIFTS). */
  let backendAsOf: string | undefined;
  const lifted: string[] = [];
  const backend = () => backendAsOf ?? backendFloor;
  const pins = () => [
    ...(backend()
      ? ['setuptools', 'wheel'].flatMap((name) => ['--exclude-newer-package', `${name}=${backend()}`])
      : []),
    ...lifted,
  ];
  const compile = async (args: string[]): Promise<ToolRun> => {
    for (let round = 0; ; round++) {
      const r = await run([...args, ...pins()]);
      if (r.code === 0 || round >= MAX_LIFTS) return r;
      const lift = BACKEND_LIFTS.find(
        (l) => l.from === backendAsOf && l.needs.test(plain(r.stderr)) && asOf.toISOString() < l.asOf,
      );
      if (lift) {
        backendAsOf = lift.asOf;
        notes.push(`setuptools and wheel are resolved as of ${lift.asOf.slice(0, 10)} ${lift.why}`);
        continue;
      }
      // A day past its publication: the cutoff excludes what was uploaded at it, and a release's files come minutes apart.
      const cutoff = (p: LateRelease) => new Date(Date.parse(p.publishedAt) + 86_400_000).toISOString();
      const late = lateReleases(r.stderr).filter((p) => !lifted.includes(`${p.name}=${cutoff(p)}`));
      if (!late.length) return r;
      for (const p of late) {
        lifted.push('--exclude-newer-package', `${p.name}=${cutoff(p)}`);
        notes.push(
          `${p.name} has no release as of ${asOf.toISOString().slice(0, 10)} that the requirements allow and the index serves (gone from it, or published later): resolved as of the day after ${p.name} ${p.version} was published (${p.publishedAt.slice(0, 10)}), alone`,
        );
      }
    }
  };
  /** Whether setuptools and wheel were resolved past the date, to read setup.py metadata (BACKEND_LIFTS). */
  const backendLifted = () => backendAsOf !== undefined;
  return { compile, pins, backendLifted };
}
