import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../../process/run';
import { fileRelease } from './download-store';
import { requirementName } from './pyproject';
import { pyprojectDeclares } from './pyproject-declares';
import { setupRequires } from './setup-requires';

/**
 * The sdists a fetch leaves for the image to build (no wheel of their release beside them: a C extension
 * for a Python its release published no wheel for) and what each one's build asks for: its
 * pyproject.toml's `build-system.requires`, and the `setup_requires` of its setup.py or setup.cfg, which
 * setuptools fetches itself as the build starts (cffi for the C extensions of before manylinux wheels,
 * setuptools_scm, pytest-runner). The image builds them offline, from the dependency directory alone, so
 * a backend or build tool nothing else brings (poetry, Cython, setuptools_scm) fails the build where the
 * fetch does not add it. An sdist that asks for nothing builds with the setuptools and wheel every fetch brings.
 */
export async function sdistBuildRequires(python: string, depsDir: string): Promise<Map<string, string[]>> {
  const kept = sdistsWithoutWheel(await readdir(depsDir));
  const found = new Map<string, string[]>();
  if (!kept.length) return found;
  const paths = kept.map((f) => join(depsDir, f));
  const [pyprojects, setupPys, setupCfgs] = await Promise.all(
    ['pyproject.toml', 'setup.py', 'setup.cfg'].map((name) => sdistTopFiles(python, paths, name)),
  );
  for (const path of paths) {
    const requires = [
      ...pyprojectDeclares(pyprojects.get(path) ?? '').buildRequires,
      ...setupRequires(setupPys.get(path) ?? '', setupCfgs.get(path) ?? ''),
    ];
    if (requires.length) found.set(path.slice(depsDir.length + 1), [...new Set(requires)]);
  }
  return found;
}

/** The sdists among a directory's files with no wheel of their release beside them. */
export function sdistsWithoutWheel(files: string[]): string[] {
  return files.filter((f) => {
    const sdist = /^(.+)-([^-]+)\.(tar\.gz|zip|tar\.bz2|tgz)$/.exec(f);
    if (!sdist) return false;
    const name = requirementName(sdist[1]);
    return !files.some((w) => w.endsWith('.whl') && fileRelease(w, sdist[2]) === name);
  });
}

/** The text of the file `name` at each sdist's top, by archive path (absent where it has none or cannot be read). */
export async function sdistTopFiles(python: string, sdists: string[], name: string): Promise<Map<string, string>> {
  if (!sdists.length) return new Map();
  const r = await run(python, ['-c', READ_TOP_FILES, name, ...sdists]);
  if (r.exitCode !== 0) return new Map();
  const texts = JSON.parse(r.stdout) as Record<string, string | null>;
  return new Map(Object.entries(texts).filter((e): e is [string, string] => e[1] !== null));
}

/** Prints, as JSON by archive, the text of the file argv[1] at an sdist's top (null where it has none or cannot be read). */
const READ_TOP_FILES = `import json, sys, tarfile, zipfile
out = {}
for p in sys.argv[2:]:
    try:
        if p.endswith('.zip'):
            a = zipfile.ZipFile(p); names = a.namelist(); read = a.read
        else:
            a = tarfile.open(p); names = a.getnames(); read = lambda n: a.extractfile(n).read()
        top = [n for n in names if n.count('/') == 1 and n.endswith('/' + sys.argv[1])]
        out[p] = read(top[0]).decode('utf-8', 'replace') if top else None
    except Exception:
        out[p] = None
print(json.dumps(out))`;
