import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { newestHostJdk } from '../../src/environments/languages/java/host-jdk';
import { bundlePath, SHARED_REPOS } from './real-repos';

type TestBody = () => Promise<unknown>;
type TestFn = (name: string, fn: TestBody, timeout?: number) => void;

/**
 * `test`, or, where `missing` says what this machine lacks for it, a skip that says so in the test's
 * name. On CI (CI=true) with the shared repositories present the machine is provisioned for every
 * test: there a missing precondition fails the run instead of passing unseen.
 */
export function testIf(missing: string | undefined): TestFn {
  if (!missing) return test;
  if (process.env.CI === 'true' && existsSync(SHARED_REPOS)) {
    return (name, _fn, timeout) =>
      test(
        name,
        async () => {
          throw new Error(`CI lacks what this test needs: ${missing}`);
        },
        timeout,
      );
  }
  return (name, fn, timeout) => test.skip(`${name} [skipped: ${missing}]`, fn, timeout);
}

/** What the host lacks to run `tool` (`tool --version`, `go version`), or undefined. */
export function missingTool(tool: string): string | undefined {
  try {
    execFileSync(tool, tool === 'go' ? ['version'] : ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `no ${tool} on this host`;
  }
}

/** What the host lacks to clone a shared repository's bundle and fetch with `tool`, or undefined. */
export function missingRealRepo(bundle: string, tool: string): string | undefined {
  return bundlePath(bundle) ? missingTool(tool) : `no ${bundle}.bundle in ${SHARED_REPOS}`;
}

function pyenvRoot(): string | undefined {
  try {
    return (
      execFileSync('pyenv', ['root'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/**
 * What the host lacks to provide a CPython 3.`minMinor` or later, or undefined: a glance at pyenv's
 * versions directory (src/environments/languages/python/host-pythons.ts probes each interpreter; a test that finds none
 * there after this said yes fails, as it should).
 */
export function missingPython(minMinor = 0): string | undefined {
  const { dir, found } = pyenvPythons();
  return found.some((v) => Number(v.split('.')[1]) >= minMinor)
    ? undefined
    : `no CPython ${minMinor ? `3.${minMinor} or later` : 3} in ${dir} (pyenv)`;
}

/** What the host lacks to provide every one of these CPython minors ('3.8'), or undefined. */
export function missingPythons(minors: string[]): string | undefined {
  const { dir, found } = pyenvPythons();
  const missing = minors.filter((m) => !found.some((v) => v.startsWith(`${m}.`)));
  return missing.length ? `no CPython ${missing.join(', ')} in ${dir} (pyenv)` : undefined;
}

/** pyenv's CPython 3 versions ('3.12.1') that have a python3. */
function pyenvPythons(): { dir: string; found: string[] } {
  const root = process.env.PYENV_ROOT || pyenvRoot() || join(homedir(), '.pyenv');
  const dir = join(root, 'versions');
  const found = existsSync(dir)
    ? readdirSync(dir).filter((v) => /^3\.(\d+)\./.test(v) && existsSync(join(dir, v, 'bin', 'python3')))
    : [];
  return { dir, found };
}

/**
 * What the host lacks to provide a stable rustc 1.`minMinor` or later with its cargo, or undefined: its
 * `rustc -vV` (src/environments/languages/rust/host-rust.ts asks the same and finds the sysroot).
 */
export function missingRust(minMinor: number): string | undefined {
  try {
    const out = execFileSync('rustc', ['-vV'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const minor = Number(/^release: 1\.(\d+)\.\d+$/m.exec(out)?.[1] ?? -1);
    return minor >= minMinor ? missingTool('cargo') : `no stable rustc 1.${minMinor} or later on this host`;
  } catch {
    return 'no rustc on this host';
  }
}

/** What the host lacks to provide a JDK of release `min` or later (src/environments/languages/java/host-jdk.ts looks the same way), or undefined. */
export function missingJdk(min: number): string | undefined {
  const jdk = newestHostJdk();
  if (!jdk || Number(jdk.release) < min) return `no JDK ${min} or later in JAVA_HOME or /usr/lib/jvm`;
  return missingTool('mvn');
}
