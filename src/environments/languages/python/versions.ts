import { specifierAllows } from './pyproject';

/** The image's own Python (Debian bookworm's); every other minor comes from a host prefix. */
export const BASE_PYTHON = '3.11';

/**
 * When each CPython minor's first beta came out. A project starts testing a minor at its beta ("test
 * with python 3.13", jinja #1977, landed a week after 3.13.0b1 and five months before 3.13.0), so
 * that is when the minor becomes the era's Python; its final release would leave such PRs on the old one.
 */
const FIRST_BETA: Record<string, string> = {
  '2.7': '2010-04-03',
  '3.5': '2015-05-24',
  '3.6': '2016-09-12',
  '3.7': '2018-01-31',
  '3.8': '2019-06-04',
  '3.9': '2020-05-18',
  '3.10': '2021-05-03',
  '3.11': '2022-05-08',
  '3.12': '2023-05-22',
  '3.13': '2024-05-08',
  '3.14': '2025-05-07',
};

/**
 * When each CPython minor's final release came out. Between a minor's first beta and its release a
 * project may test on it already, but the packages of those months often do not run on it yet (2019's
 * hypothesis fails to import on 3.8): the roundest pick among the tested minors (choosePython) is made
 * among the released ones, and the beta stays the `newer` fallback.
 */
const FINAL: Record<string, string> = {
  '3.5': '2015-09-13',
  '3.6': '2016-12-23',
  '3.7': '2018-06-27',
  '3.8': '2019-10-14',
  '3.9': '2020-10-05',
  '3.10': '2021-10-04',
  '3.11': '2022-10-24',
  '3.12': '2023-10-02',
  '3.13': '2024-10-07',
  '3.14': '2025-10-07',
};

/** The day a CPython minor's final release came out (FINAL), where the table knows it. */
export const finalRelease = (minor: string): string | undefined => FINAL[minor];

/** A CPython the host provides: its minor ('3.13') and its installation prefix. */
export interface ProvidedPython {
  version: string;
  prefix: string;
}

/**
 * What a Python stage's interpreter is chosen by: the host's Pythons and the base commit's date, the
 * latter read only for a Python project (a git call on every stage's lookup otherwise).
 */
export interface PythonEra {
  provided: ProvidedPython[];
  baseDate(): Promise<Date>;
  /** The minors the project says it tests on at the base (python/tested-pythons.ts); none where it says nothing. */
  tested?(): Promise<string[]>;
}

export interface PythonChoice {
  version: string;
  /** The host prefix copied into the toolchain image; absent for the base image's own Python. */
  prefix?: string;
  /** Why this one, for the manifest. */
  note: string;
  /** The newest the project tests on, where the choice is an older one: built instead where the older cannot have what the stage resolves (a pin that needs a newer Python). */
  newer?: PythonChoice;
}

/**
 * How round a minor is: the power of two its number is a multiple of (3.8 → 8, 3.12 → 4, 3.10 → 2, 3.9 → 1).
 * A project tests on a span of consecutive minors that slides up a minor or so a year (one added at
 * the top, the oldest dropped); the roundest member of such a span stays in it, and stays the
 * roundest, for longer than any other, so stages years apart pick the same one. The newest tested
 * minor moves with every addition: a new interpreter, and a new environment, for each CI matrix edit.
 */
function roundness(version: string): number {
  const minor = Number(version.split('.')[1] ?? 0);
  return minor === 0 ? Infinity : minor & -minor;
}

/** A minor missing from the table counts as not out yet: it is chosen only where nothing older is allowed. */
const firstBeta = (version: string) => FIRST_BETA[version] ?? '9999-12-31';
const minorKey = (v: string) =>
  v
    .split('.')
    .map(Number)
    .reduce((acc, n) => acc * 1000 + n, 0);
/** Whether a minor's final release was out by `day`; those older than the table were, long before. */
const released = (version: string, day: string) =>
  (FINAL[version] ?? (minorKey(version) < minorKey('3.5') ? '0000' : '9999')) <= day;

/**
 * The Python for a stage: where the project names the minors it tests on (`tested`: CI, tox,
 * classifiers), the roundest (`roundness`) of those between the oldest and the newest of them that
 * its requires-python allows and that were out (first beta) by the stage's base commit date, with the
 * newest of them as `newer`; where none is, the newest below them; where none is either (or the
 * project names none), the newest minor (the base image's or a provided one) that requires-python
 * allows and that was out by then; where none was out, the oldest allowed (the nearest
 * to the era); where none is allowed, the base image's with a note. A PR whose merge changes it
 * (`mergeRequires`: python-dateutil 4 raised it to 3.9 where 3.0 allowed 3.8) is chosen among those both
 * allow, or where none is, one the merge allows chosen as above by the base's date: its merge cannot
 * install or import on a Python it excludes. A PR that leaves it as it is gets what its base gets.
 * A project that needs nothing from a registry on the base image's Python (its pytest is Debian's)
 * keeps that one where it allows it and it is of the stage's era (tested on, or out by then): any other
 * would need pytest fetched, and the build a registry.
 */
export function choosePython(
  provided: ProvidedPython[],
  requiresPython: string | undefined,
  baseDate: Date,
  needsNoFetch = false,
  tested: string[] = [],
  mergeRequires?: string,
): PythonChoice {
  const spec = requiresPython?.trim();
  const mergeSpec = mergeRequires?.trim();
  const mergeAllows = (version: string) => !mergeSpec || specifierAllows(mergeSpec, version);
  const day = baseDate.toISOString().slice(0, 10);
  // The image's Python is of the stage's era where the project tests on it, or, naming none, where it was out by then:
  // an older project's code may not even parse on it (a bare generator argument beside another, which 3.7 refuses).
  const ofEra = tested.length
    ? minorKey(BASE_PYTHON) >= Math.min(...tested.map(minorKey)) &&
      minorKey(BASE_PYTHON) <= Math.max(...tested.map(minorKey))
    : firstBeta(BASE_PYTHON) <= day;
  if (needsNoFetch && ofEra && (!spec || specifierAllows(spec, BASE_PYTHON)) && mergeAllows(BASE_PYTHON)) {
    return {
      version: BASE_PYTHON,
      note: `the project needs no package beyond the image's own (pytest): the image's Python ${BASE_PYTHON}, which needs no registry`,
    };
  }
  const candidates: Array<{ version: string; prefix?: string }> = [
    { version: BASE_PYTHON },
    // Python 2 has no venv module; the recipe needs one.
    ...provided.filter((p) => p.version !== BASE_PYTHON && minorKey(p.version) >= minorKey('3.0')),
  ];
  const unique = [...new Map(candidates.map((c) => [c.version, c])).values()].sort(
    (a, b) => minorKey(a.version) - minorKey(b.version),
  );
  const allowed = unique.filter((c) => (!spec || specifierAllows(spec, c.version)) && mergeAllows(c.version));
  const out = allowed.filter((c) => firstBeta(c.version) <= day);
  const asks =
    (spec ? `the project asks for Python ${spec}` : 'the project names no Python version') +
    (mergeSpec ? ` (its PR's merge for ${mergeSpec})` : '');
  const offered = unique.map((c) => c.version).join(', ');
  const mergeOnly = unique.filter((c) => mergeAllows(c.version));
  if (mergeSpec && !allowed.length && mergeOnly.length) {
    // As for any stage: the newest out by the base commit's date, else the nearest to its era.
    const mergeOut = mergeOnly.filter((c) => firstBeta(c.version) <= day);
    const pick = mergeOut.length ? mergeOut[mergeOut.length - 1] : mergeOnly[0];
    const which = mergeOut.length
      ? `the newest the merge allows that was out by ${day}`
      : 'the oldest the merge allows';
    return {
      ...pick,
      note: `${asks}; none of those provided (${offered}) is allowed by both: Python ${pick.version}, ${which}`,
    };
  }
  const newestTested = tested.length ? tested.reduce((a, b) => (minorKey(a) >= minorKey(b) ? a : b)) : undefined;
  const oldestTested = tested.length ? tested.reduce((a, b) => (minorKey(a) <= minorKey(b) ? a : b)) : undefined;
  const testedOut = newestTested
    ? out.filter((c) => minorKey(c.version) >= minorKey(oldestTested!) && minorKey(c.version) <= minorKey(newestTested))
    : [];
  if (testedOut.length) {
    const newest = testedOut[testedOut.length - 1];
    const settled = testedOut.filter((c) => released(c.version, day));
    const pick = (settled.length ? settled : testedOut).reduce((a, b) =>
      roundness(b.version) >= roundness(a.version) ? b : a,
    );
    const beta = testedOut.filter((c) => settled.length && !settled.includes(c)).map((c) => c.version);
    const why = `${asks} and tests on Python ${tested.join(', ')} (CI, tox, classifiers); of those provided (${offered}) it allows and tests on that were out by the base commit's date ${day} (${testedOut.map((c) => c.version).join(', ')}${beta.length ? `; ${beta.join(', ')} not yet released, not chosen` : ''})`;
    const newer: PythonChoice = {
      ...newest,
      note: `${why}, Python ${newest.version} is the newest (first beta ${firstBeta(newest.version)}); the roundest, ${pick.version}, cannot have what the stage resolves`,
    };
    if (pick === newest)
      return {
        ...pick,
        note: `${why}, Python ${pick.version} is the roundest (the one a sliding span of tested minors keeps longest) and the newest`,
      };
    return {
      ...pick,
      note: `${why}, Python ${pick.version} is the roundest: the one a span of history keeps while its CI adds and drops minors around it, so its stages share environments (the newest, ${newest.version}, where it cannot have what the stage resolves)`,
      newer,
    };
  }
  // None of the tested minors is provided: the newest below them, nearer to what CI ran than a newer one.
  const below = newestTested ? out.filter((c) => minorKey(c.version) <= minorKey(newestTested)) : [];
  if (below.length) {
    const pick = below[below.length - 1];
    return {
      ...pick,
      note: `${asks} and tests on Python ${tested.join(', ')} (CI, tox, classifiers), none of which is provided (${offered}); Python ${pick.version} is the newest it allows below them that was out (first beta ${firstBeta(pick.version)}) by the base commit's date ${day}`,
    };
  }
  if (out.length) {
    const pick = out[out.length - 1];
    return {
      ...pick,
      note: `${asks}; Python ${pick.version} is the newest of those provided (${offered}) it allows that was out (first beta ${firstBeta(pick.version)}) by the base commit's date ${day}`,
    };
  }
  if (allowed.length) {
    const pick = allowed[0];
    return {
      ...pick,
      note: `${asks}; none of those provided (${offered}) it allows was out by the base commit's date ${day}: Python ${pick.version}, the nearest`,
    };
  }
  return {
    version: BASE_PYTHON,
    note: `${asks}; none of those provided (${offered}) matches: the image's ${BASE_PYTHON}, the nearest available`,
  };
}
