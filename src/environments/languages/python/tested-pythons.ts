import { git } from '../../../git';
import { showFile } from '../../cat-file';

/**
 * The CPython minors a project says it tests on at a commit: its GitHub Actions workflows' Python
 * versions, its tox envlist (py38, py3{11,10}) and its Travis python list, and its trove classifiers
 * ("Programming Language :: Python :: 3.12"). Python 2 and PyPy are left out: the recipe makes a venv on a CPython 3.
 *
 * Why: a minor's first beta says when it could be tested, not when this project did. Pinned test
 * requirements are resolved for the Pythons the project ran then (jinja #1960, three days after
 * 3.13.0b1, pins trio 0.22.2 "for Python3.7 support", which does not import on 3.13; its CI tests up to 3.12).
 */
export async function testedPythons(repoPath: string, sha: string): Promise<string[]> {
  const workflows = await git(repoPath, ['ls-tree', '--name-only', sha, '--', '.github/workflows/']).catch(() => '');
  const paths = [
    ...workflows.split('\n').filter((p) => /\.ya?ml$/.test(p)),
    '.travis.yml',
    'tox.ini',
    'setup.py',
    'setup.cfg',
    'pyproject.toml',
  ];
  const texts = await Promise.all(
    paths.map(async (p) => [p, (await showFile(repoPath, `${sha}:${p}`)) ?? ''] as const),
  );
  const minors = new Set<string>();
  for (const [path, text] of texts) {
    const found =
      path === 'tox.ini' ? toxMinors(text) : /\.ya?ml$/.test(path) ? yamlMinors(text) : classifierMinors(text);
    for (const m of found) minors.add(m);
  }
  return [...minors].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}

/** `3.N` versions (any patch or `-dev` suffix) in a piece of text, PyPy's ("pypy-3.10", "pypy3.9") left out. */
function versionsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(pypy-?)?(?<![\w.])3\.(\d{1,2})(?!\d)/gi)) if (!m[1]) out.push(`3.${m[2]}`);
  return out;
}

/**
 * Versions under a YAML key naming Python (python, python-version, python_version, pythons): on the
 * key's line (`python: '3.12'`, `python-version: ["3.8", "3.9"]`, `- {python: '3.12'}`) or in the list below it.
 */
export function yamlMinors(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const key = /^(\s*)(?:-\s*)?(?:\{.*?)?\bpython[-_]?(?:versions?)?s?\s*:(.*)$/i.exec(lines[i]);
    if (!key) continue;
    const rest = key[2].replace(/#.*/, '');
    if (rest.trim()) {
      out.push(...versionsIn(rest));
      continue;
    }
    for (
      let j = i + 1;
      j < lines.length && /^\s*(-\s|#|$)/.test(lines[j]) && (lines[j].match(/^\s*/)?.[0].length ?? 0) >= key[1].length;
      j++
    ) {
      out.push(...versionsIn(lines[j].replace(/#.*/, '')));
    }
  }
  return out;
}

/** tox's envlist factors: py311, py3{11,10,9}, py{38,37} (braces expanded once; pypy3 is not py3N). */
export function toxMinors(text: string): string[] {
  const envlist = /^\s*envlist\s*=([^\n]*(?:\n[ \t]+[^\n]*)*)/m.exec(text)?.[1] ?? '';
  const expanded = envlist.replace(/\bpy(\d?)\{([^}]*)\}/g, (_, lead: string, body: string) =>
    body
      .split(',')
      .map((x) => `py${lead}${x.trim()}`)
      .join(','),
  );
  const out: string[] = [];
  for (const m of expanded.matchAll(/\bpy3(\d{1,2})\b/g)) out.push(`3.${m[1]}`);
  return out;
}

/** Trove classifiers naming a CPython 3 minor. */
function classifierMinors(text: string): string[] {
  return [...text.matchAll(/Programming Language :: Python :: (3\.\d{1,2})\b/g)].map((m) => m[1]);
}
