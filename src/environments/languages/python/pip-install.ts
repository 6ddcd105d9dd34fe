import { shellQuote } from '../../../process/shell-quote';

/**
 * The offline install of a venv that pip fills (the Pythons before 3.8), in two passes: the pins with a
 * wheel in the dependency directory first, which need no build, then every pin. An sdist whose setup.py
 * imports a dependency or lists it in `setup_requires` (cffi, six, numpy, the C extensions of before
 * manylinux wheels) then finds it installed: pip builds a project without pyproject.toml in the venv
 * itself, and setuptools' own fetch of `setup_requires` looks in the venv first. What it still lacks
 * (a build-time-only requirement the fetch put beside the sdist, sdist-backends.ts) setuptools fetches
 * from the dependency directory: an easy_install configuration in the build's HOME names it, and pip's
 * `PIP_NO_INDEX` keeps the setuptools that fetch with pip (42 on) off the index.
 */
export function pipInstall(pip: string, python: string, deps: string): string[] {
  const wheels = '/tmp/chainsmith-wheel-pins.txt';
  const config = '/tmp/chainsmith-build-home';
  return [
    `${python} -c ${shellQuote(WHEEL_PINS)} ${deps} > ${wheels}`,
    `if [ -s ${wheels} ]; then ${pip} --no-deps --find-links ${deps} -r ${wheels}; fi`,
    `mkdir -p ${config} && printf '[easy_install]\\nfind_links = ${deps}\\n' > ${config}/.pydistutils.cfg`,
    `HOME=${config} PIP_NO_INDEX=1 ${pip} --no-deps --find-links ${deps} -r ${deps}/requirements.txt`,
  ];
}

/** Prints the lines of argv[1]/requirements.txt that pin a release with a wheel in argv[1] (Python 2.7 and 3 alike). */
const WHEEL_PINS = `import os, re, sys
d = sys.argv[1]
norm = lambda s: re.sub(r'[-_.]+', '-', s).lower()
wheels = set((norm(f.split('-')[0]), f.split('-')[1]) for f in os.listdir(d) if f.endswith('.whl'))
for line in open(os.path.join(d, 'requirements.txt')):
    m = re.match(r'([A-Za-z0-9._-]+)(\\[[^\\]]*\\])?==([^\\s;]+)', line.strip())
    if m and (norm(m.group(1)), m.group(3)) in wheels:
        sys.stdout.write(line)`;
