import type { Recipe } from './recipe';

/** The virtualenv a Python recipe makes; it sees the base image's packages (pytest) through system site-packages. */
export const VENV = '/work/.venv';

export interface Layout {
  /** Names at the repository root. */
  rootFiles: ReadonlySet<string>;
  /** package.json's text, where there is one. */
  packageJson?: string;
}

/**
 * A recipe for common Python and Node layouts. `online` says whether the build may download:
 * without network only the repository itself is installed (editable, no dependencies, no build
 * isolation), so dependencies must already be in the image; with network the same recipe also
 * installs the declared dependencies.
 */
export function detectRecipe(layout: Layout, opts: { online: boolean }): Recipe {
  const has = (name: string) => layout.rootFiles.has(name);
  const requirements = [...layout.rootFiles].filter((f) => /^requirements[\w.-]*\.txt$/.test(f)).sort();
  const pythonPackage = has('pyproject.toml') || has('setup.py');
  if (pythonPackage) return python('python-package', true, requirements, opts.online, layout);
  if (has('package.json')) return node(layout, opts.online);
  if (requirements.length || ['setup.cfg', 'tox.ini', 'pytest.ini', 'conftest.py'].some(has)) {
    return python('python-plain', false, requirements, opts.online, layout);
  }
  return { origin: 'plain', setup: [], path: [], manifests: [] };
}

function python(origin: string, installable: boolean, requirements: string[], online: boolean, layout: Layout): Recipe {
  const pip = `${VENV}/bin/python -m pip install --quiet --disable-pip-version-check`;
  const setup = [`python3 -m venv --system-site-packages ${VENV}`];
  if (online) {
    if (installable) setup.push(`${pip} -e '.[test]'`);
    for (const file of requirements) setup.push(`${pip} -r ${file}`);
  } else if (installable) {
    setup.push(`${pip} --no-index --no-build-isolation --no-deps -e .`);
  }
  const manifests = ['pyproject.toml', 'setup.py', 'setup.cfg', ...requirements].filter((f) => layout.rootFiles.has(f));
  return { origin, setup, path: [`${VENV}/bin`], manifests };
}

function node(layout: Layout, online: boolean): Recipe {
  const has = (name: string) => layout.rootFiles.has(name);
  const offline = online ? '' : ' --offline';
  const [tool, install, lock] = has('pnpm-lock.yaml')
    ? ['pnpm', `pnpm install --frozen-lockfile${offline}`, 'pnpm-lock.yaml']
    : has('yarn.lock')
      ? ['yarn', `yarn install --frozen-lockfile${offline}`, 'yarn.lock']
      : has('package-lock.json')
        ? ['npm', `npm ci --no-audit --no-fund${offline}`, 'package-lock.json']
        : ['npm', `npm install --no-audit --no-fund${offline}`, undefined];
  let hasTest = false;
  try {
    hasTest = typeof JSON.parse(layout.packageJson ?? '{}')?.scripts?.test === 'string';
  } catch {
    // An unreadable package.json still gets an install; the build will say what is wrong with it.
  }
  return {
    origin: `node-${tool}`,
    // The working tree is not part of the image; Node finds packages in a parent directory's node_modules.
    setup: [install, 'mv node_modules /work/node_modules'],
    ...(hasTest ? { test: `${tool} test --silent` } : {}),
    path: ['/work/node_modules/.bin'],
    manifests: ['package.json', ...(lock ? [lock] : [])],
  };
}
