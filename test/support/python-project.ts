import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chain } from '../../src/schemas';
import type { Resolution } from '../../src/environments/contract';
import { pythonFetch, UV_IN_DEPS, type PythonInputs } from '../../src/environments/languages/python/fetch';
import { run, type RunResult } from '../../src/process/run';
import { ChainRepo } from './chain-repo';

/** `tally`, a setuptools project on Python 3.8 and later: the pyproject.toml of generated Python repositories. */
export const TALLY_PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "0.1"\nrequires-python = ">=3.8"\n';

/** A GitHub Actions workflow that runs pytest on each of `pythons` (what the Python choice reads as tested minors). */
export const ciWorkflow = (pythons: string[]) =>
  `name: tests\non: [push]\njobs:\n  tests:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        python-version: [${pythons.map((p) => `"${p}"`).join(', ')}]\n    steps:\n      - run: pytest\n`;

/** A Python fetch's inputs with nothing besides what its checkout declares but `over` (Python, tooling, ...): what a test fetch varies. */
export const fetchInputs = (over: Partial<PythonInputs> & Pick<PythonInputs, 'python'>): PythonInputs => ({
  buildRequires: [],
  testTooling: [],
  uvLock: false,
  prAdds: [],
  toolDeps: [],
  ...over,
});

/**
 * A Python fetch of a checkout of `files` (a requirements.txt, say) made under `root`, as of `asOf`:
 * the resolution, and where the checkout and the dependency directory are (the caller removes `root`).
 */
export async function fetchFiles(
  root: string,
  files: Record<string, string>,
  inputs: PythonInputs,
  asOf: Date,
  log: (line: string) => void = () => undefined,
): Promise<{ resolution: Resolution; src: string; depsDir: string }> {
  const src = join(root, 'src');
  const depsDir = join(root, 'deps');
  await mkdir(src);
  await mkdir(depsDir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(src, name), text);
  const resolution = await pythonFetch(inputs)({
    srcDir: src,
    depsDir,
    asOf,
    log,
    signal: new AbortController().signal,
    toolsDir: join(root, 'tools'),
  });
  return { resolution, src, depsDir };
}

/**
 * A directory `links` under `root` holding one sdist, `archive` (.tar.gz or .tar.bz2 by its name), of a directory
 * `tree` with `files` in it: a release the host's index does not have. Called again, it adds one more.
 */
export async function sdistLinks(
  root: string,
  tree: string,
  archive: string,
  files: Record<string, string>,
): Promise<string> {
  await mkdir(join(root, tree), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, tree, name), text);
  const links = join(root, 'links');
  await mkdir(links, { recursive: true });
  execFileSync('tar', [archive.endsWith('.bz2') ? 'cjf' : 'czf', join(links, archive), '-C', root, tree]);
  return links;
}

/** `run` with `links` offered beside the host's index the way pip's settings offer a directory (PIP_FIND_LINKS), which the fetch hands to uv and pip alike. */
export async function withFindLinks<T>(links: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env.PIP_FIND_LINKS;
  process.env.PIP_FIND_LINKS = links;
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.PIP_FIND_LINKS;
    else process.env.PIP_FIND_LINKS = saved;
  }
}

/**
 * What an image does with a fetch's dependency directory (detect.ts, uvVenv): the uv the fetch left there installs
 * `requirement` from that directory alone, offline, into a new Python 3.11 venv under `root`. The install's result
 * and the venv's Python, to import what it installed with.
 */
export async function installOffline(
  root: string,
  deps: string,
  requirement: string,
  { noDeps = false } = {},
): Promise<{ install: RunResult; python: string }> {
  const venv = join(root, 'venv');
  const made = await run('python3.11', ['-m', 'venv', '--without-pip', venv]);
  if (made.exitCode !== 0) throw new Error(`python3.11 cannot make a venv: ${made.stderr}`);
  const python = join(venv, 'bin', 'python');
  const install = await run(join(deps, UV_IN_DEPS), [
    ...['pip', 'install', '--python', python, '--offline', '--no-index', '--no-cache'],
    ...(noDeps ? ['--no-deps'] : []),
    ...['--find-links', deps, requirement],
  ]);
  return { install, python };
}

/**
 * A Python fetch of `acme`, a setuptools project whose setup.py requires `requires` (or is `setupPy`,
 * where a test needs one that does more), with `more` files beside it (a pyproject.toml), into a
 * directory of its own (removed after), as of `asOf`: the resolution and the requirements it leaves for the image.
 */
export async function fetchAcme(
  inputs: PythonInputs,
  requires: string[],
  asOf: Date,
  setupPy = `from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"], install_requires=${JSON.stringify(requires)})\n`,
  more: Record<string, string> = {},
): Promise<{ resolution: Resolution; requirements: string }> {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-fetch-acme-'));
  try {
    const src = join(root, 'src');
    const depsDir = join(root, 'deps');
    await mkdir(join(src, 'acme'), { recursive: true });
    await mkdir(depsDir);
    await writeFile(join(src, 'acme', '__init__.py'), '');
    await writeFile(join(src, 'setup.py'), setupPy);
    for (const [name, text] of Object.entries(more)) await writeFile(join(src, name), text);
    const resolution = await pythonFetch(inputs)({
      srcDir: src,
      depsDir,
      asOf,
      log: () => undefined,
      signal: new AbortController().signal,
      toolsDir: join(root, 'tools'),
    });
    return { resolution, requirements: await readFile(join(depsDir, 'requirements.txt'), 'utf8') };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A setup.py for `tally`, one package and `installRequires`: the project of the era tests below. */
export const tallySetupPy = (installRequires: string[] = []) =>
  `from setuptools import setup\n\nsetup(name="tally", version="0.1", packages=["tally"]${installRequires.length ? `, install_requires=${JSON.stringify(installRequires)}` : ''})\n`;

/** tally/__init__.py whose add returns `body`. */
export const tallyAdd = (body: string) => `def add(a, b):\n    return ${body}\n`;

/**
 * A chain of one PR in `dir`/tally, a repository of `files` beside tally's subtracting add, committed at
 * `date` (its first commit differs each run): the PR makes add add and adds `testFile` as tests/test_add.py.
 */
export async function addFixChain(
  dir: string,
  id: string,
  files: Record<string, string>,
  date: Date,
  testFile: string,
): Promise<Chain> {
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    { ...files, 'tally/__init__.py': tallyAdd('a - b'), NONCE: randomBytes(8).toString('hex') },
    date,
  );
  const pr = await repo.pr(1, 'Add adds', { 'tally/__init__.py': tallyAdd('a + b'), 'tests/test_add.py': testFile });
  return repo.chain(id, [pr]);
}
