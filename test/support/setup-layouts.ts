import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chain } from '../../src/schemas';
import { ChainRepo, type Files } from './chain-repo';
import type { ChatRequest, Reply, Script } from './fake-openai';

/**
 * Generated repositories in layouts no detector knows (src/environments/detect.ts): the tests run by a
 * project script, a makefile under a folder, a runner in a subfolder, or a tool no image has. Each has
 * a CI file (.ci.yml) whose `run:` lines set it up and run its tests, the first of them an install
 * that needs the network, as real CI files have. Every chain has two stages, each a fix with a test
 * that fails before it.
 */
export type Layout = 'script' | 'make' | 'subfolder-runner' | 'pip-packages' | 'unrescuable';
export const LAYOUTS: Layout[] = ['script', 'make', 'subfolder-runner', 'pip-packages', 'unrescuable'];

/** A package from the registry the host's pip is configured for, pure Python, that the images do not have: the pip-packages layout's code imports it. */
export const REGISTRY_PACKAGE = 'sortedcontainers';

const ci = (toolchain: string, runs: string[]) =>
  `# CI of the project\ntoolchain: ${toolchain}\nsteps:\n${runs.map((r) => `  - run: ${r}\n`).join('')}`;

/** The clamp function in shell, wrong above the range until the first fix, wrong at the bounds' order until the second. */
const clampSh = (stage: number) =>
  `clamp() {\n  x=$1; lo=$2; hi=$3\n${stage >= 2 ? '  if [ "$lo" -gt "$hi" ]; then t=$lo; lo=$hi; hi=$t; fi\n' : ''}  if [ "$x" -lt "$lo" ]; then echo "$lo"; return; fi\n${stage >= 1 ? '  if [ "$x" -gt "$hi" ]; then echo "$hi"; return; fi\n' : ''}  echo "$x"\n}\n`;
const CASES = ['-5 0 10 0', '50 0 10 10', '5 10 0 5'];
/** A shell check: each case `x lo hi expected`. */
const shCheck = (cases: string[]) =>
  `. ./lib/clamp.sh\nfail=0\n${cases
    .map((c) => {
      const [x, lo, hi, want] = c.split(' ');
      return `[ "$(clamp ${x} ${lo} ${hi})" = ${want} ] && echo "ok clamp ${x} ${lo} ${hi}" || { echo "FAIL clamp ${x} ${lo} ${hi}"; fail=1; }\n`;
    })
    .join('')}exit $fail\n`;

/** The clamp function in Python, importing the registry package (so nothing runs without it), with the shell version's two bugs. */
const clampPy = (stage: number) =>
  `from ${REGISTRY_PACKAGE} import SortedList\n\n\ndef clamp(x, lo, hi):\n` +
  (stage >= 2 ? '    lo, hi = SortedList([lo, hi])\n' : '') +
  '    if x < lo:\n        return lo\n' +
  (stage >= 1 ? '    if x > hi:\n        return hi\n' : '') +
  '    return x\n';
/** Runs each `x lo hi expected` case file of a folder through the Python clamp. */
const pyCases =
  'import pathlib, sys\nsys.path.insert(0, "lib")\nfrom clamp import clamp\n\nfailed = 0\n' +
  'for case in sorted(pathlib.Path(sys.argv[1]).glob("*.case")):\n' +
  '    x, lo, hi, want = map(int, case.read_text().split())\n' +
  '    print(("ok " if clamp(x, lo, hi) == want else "FAIL ") + case.name)\n' +
  '    failed += clamp(x, lo, hi) != want\nsys.exit(1 if failed else 0)\n';

interface LayoutFiles {
  init: Files;
  /** Files of each stage's PR: the fix and its test. */
  prs: [Files, Files];
}

function layoutFiles(layout: Layout): LayoutFiles {
  const lib = (stage: number) => ({ 'lib/clamp.sh': clampSh(stage) });
  switch (layout) {
    case 'script':
      return {
        init: {
          ...lib(0),
          '.ci.yml': ci('python', ['apt-get install -y shellcheck', 'sh scripts/run-checks']),
          'scripts/run-checks': 'fail=0\nfor f in tests/*.sh; do sh "$f" || fail=1; done\nexit $fail\n',
          'tests/low.sh': shCheck(CASES.slice(0, 1)),
          'README.md': 'Run scripts/run-checks.\n',
        },
        prs: [
          { ...lib(1), 'tests/high.sh': shCheck(CASES.slice(1, 2)) },
          { ...lib(2), 'tests/swapped.sh': shCheck(CASES.slice(2, 3)) },
        ],
      };
    case 'make':
      return {
        init: {
          ...lib(0),
          '.ci.yml': ci('c', ['make -f mk/check.mk check']),
          'mk/check.mk': 'check:\n\tfor f in test/*.t.sh; do sh $$f || exit 1; done\n',
          'test/low.t.sh': shCheck(CASES.slice(0, 1)),
        },
        prs: [
          { ...lib(1), 'test/high.t.sh': shCheck(CASES.slice(1, 2)) },
          { ...lib(2), 'test/swapped.t.sh': shCheck(CASES.slice(2, 3)) },
        ],
      };
    case 'subfolder-runner': {
      const runner =
        'import pathlib, subprocess, sys\nfailed = 0\nfor case in sorted(pathlib.Path(sys.argv[1]).glob("*.case")):\n' +
        '    x, lo, hi, want = case.read_text().split()\n' +
        '    got = subprocess.run(["sh", "-c", f". ./lib/clamp.sh; clamp {x} {lo} {hi}"], capture_output=True, text=True).stdout.strip()\n' +
        '    print(("ok " if got == want else "FAIL ") + case.name)\n    failed += got != want\nsys.exit(1 if failed else 0)\n';
      return {
        init: {
          ...lib(0),
          '.ci.yml': ci('python', ['pip install --no-index tox', 'python3 tools/runner/run.py tests/cases']),
          'tools/runner/run.py': runner,
          'tests/cases/low.case': CASES[0],
        },
        prs: [
          { ...lib(1), 'tests/cases/high.case': CASES[1] },
          { ...lib(2), 'tests/cases/swapped.case': CASES[2] },
        ],
      };
    }
    case 'pip-packages':
      // Its requirements sit where no detector looks (ci/), and its tests are case files a script runs.
      return {
        init: {
          'lib/clamp.py': clampPy(0),
          '.ci.yml': ci('python', ['pip install -r ci/pip-packages.txt', 'sh scripts/run-checks']),
          'ci/pip-packages.txt': `${REGISTRY_PACKAGE}>=2\n`,
          'scripts/run-checks': 'exec python3 scripts/cases.py tests/cases\n',
          'scripts/cases.py': pyCases,
          'tests/cases/low.case': CASES[0],
        },
        prs: [
          { 'lib/clamp.py': clampPy(1), 'tests/cases/high.case': CASES[1] },
          { 'lib/clamp.py': clampPy(2), 'tests/cases/swapped.case': CASES[2] },
        ],
      };
    case 'unrescuable':
      return {
        init: {
          'lib/clamp.rb': 'def clamp(x, lo, hi) = x < lo ? lo : x\n',
          '.ci.yml': ci('python', ['bundle install', 'bundle exec rake test']),
          'test/low_test.rb': 'require "clamp"\n',
        },
        prs: [
          { 'lib/clamp.rb': 'def clamp(x, lo, hi) = x.clamp(lo, hi)\n', 'test/high_test.rb': 'require "clamp"\n' },
          {
            'lib/clamp.rb': 'def clamp(x, lo, hi) = x.clamp(*[lo, hi].sort)\n',
            'test/swapped_test.rb': 'require "clamp"\n',
          },
        ],
      };
  }
}

/** A repository of `layout` with its two-stage chain, named gen/<layout>-<tag>. */
export async function layoutChain(layout: Layout, tag: string): Promise<Chain> {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-setup-${layout}-`));
  const files = layoutFiles(layout);
  const repo = await ChainRepo.create(join(dir, 'repo'), files.init);
  const prs = [
    await repo.pr(1, 'Clamp from above too', files.prs[0]),
    await repo.pr(2, 'Accept the bounds in either order', files.prs[1]),
  ];
  return repo.chain(`gen/${layout}-${tag}`, prs);
}

/** The `run:` lines the agent read from the CI file in its last tool result (read_file numbers lines `N\t`). */
function ciRuns(request: ChatRequest): { toolchain: string; runs: string[] } {
  const tool = [...request.messages].reverse().find((m) => m.role === 'tool' && /toolchain: /.test(m.content ?? ''));
  const text = tool?.content ?? '';
  const toolchain = /toolchain: (\w+)/.exec(text)?.[1] ?? 'python';
  const runs = [...text.matchAll(/^\d+\t\s*- run: (.*)$/gm)].map((m) => m[1]);
  return { toolchain, runs };
}

/** The commands the feedback so far named as failing (src/model/prompts/setup-agent/failed.md). */
function failedCommands(request: ChatRequest): Set<string> {
  const text = request.messages.map((m) => m.content ?? '').join('\n');
  return new Set([...text.matchAll(/^The failing command: (.*)$/gm)].map((m) => m[1].trim()));
}

/** A CI line that installs requirement files from a registry: `pip install -r FILE`. */
const PIP_REQUIREMENTS = /^pip3? install\b.*\s-r\s+(\S+)/;
/** The venv a recipe installs what chainsmith fetched into (src/model/prompts/setup-agent/system.md). */
const FETCHED_INSTALL = [
  'python3 -m venv --system-site-packages /work/.venv',
  '/work/.venv/bin/pip install --no-index --find-links /deps -r /deps/requirements.txt',
];

/**
 * A scripted setup agent that reads the CI file and proposes what it says: every `run:` line, the last
 * one the test command and the others setup, less the setup lines the feedback so far named as the
 * failing command; a failed `pip install -r FILE` becomes FILE to resolve on the host and an offline
 * install from /deps, as the system prompt says. So the first recipe of a CI file with an install step
 * that needs the network fails, and the second works only if the failing command reached the model
 * (and, for a requirements file, only if the host-side fetch ran). It knows nothing of the layouts:
 * its recipe comes from what the read tool returned. Other callers are not expected.
 */
export function ciReadingModel(): Script {
  return (request, marker) => {
    if (marker?.caller !== 'setup-agent') throw new Error(`unexpected caller ${marker?.caller}`);
    if ((marker.step ?? 0) === 0)
      return { toolCalls: [{ name: 'read_file', args: { path: '.ci.yml', start_line: 1 } }] };
    const { toolchain, runs } = ciRuns(request);
    const failed = failedCommands(request);
    const setup: string[] = [];
    const resolve: string[] = [];
    for (const run of runs.slice(0, -1)) {
      const file = PIP_REQUIREMENTS.exec(run)?.[1];
      if (!failed.has(run)) setup.push(run);
      else if (file) resolve.push(file);
    }
    const test = runs[runs.length - 1] ?? 'true';
    return proposal({
      toolchain,
      language: resolve.length ? 'python' : 'unknown',
      manifests: ['.ci.yml'],
      resolve,
      setup: resolve.length ? [...FETCHED_INSTALL, ...setup] : setup,
      test: resolve.length ? `PATH=/work/.venv/bin:$PATH ${test}` : test,
      runner: 'exit-code',
    });
  };
}

/** A propose_recipe call; `resolve` empty where not given (the schema asks for every field). */
export function proposal(recipe: {
  toolchain: string;
  language: string;
  manifests: string[];
  resolve?: string[];
  setup: string[];
  test: string;
  runner: string;
}): Reply {
  return { toolCalls: [{ name: 'propose_recipe', args: { resolve: [], ...recipe } }] };
}
