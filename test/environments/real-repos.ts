import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchContext } from '../../src/environments/contract';
import { hostCheckout } from '../../src/environments/dependencies';
import { bundlePath, cloneBundle, SHARED_REPOS } from '../support/real-repos';

/**
 * The shared clone of a real repository's bundle (made once per machine), or undefined with a message
 * where the bundle or the host's package manager is absent.
 */
export async function realRepo(bundle: string, tool: string): Promise<string | undefined> {
  if (!bundlePath(bundle)) {
    console.warn(`skipping: no ${bundle}.bundle in ${SHARED_REPOS}`);
    return undefined;
  }
  if (!hostHas(tool)) {
    console.warn(`skipping: no ${tool} on this host`);
    return undefined;
  }
  return cloneBundle(bundle);
}

/** The tree at `sha` in a directory of its own, as the dependency cache gives a fetcher. */
export async function checkoutAt(repo: string, sha: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'chainsmith-src-'));
  await hostCheckout(repo, sha, dir);
  return dir;
}

export function fetchContext(srcDir: string, asOf: Date): FetchContext & { lines: string[] } {
  const lines: string[] = [];
  return { srcDir, depsDir: mkdtempSync(join(tmpdir(), 'chainsmith-deps-')), asOf, log: (l) => lines.push(l), signal: new AbortController().signal, lines };
}

export function commitDate(repo: string, sha: string): Date {
  return new Date(execFileSync('git', ['log', '-1', '--format=%cI', sha], { cwd: repo, encoding: 'utf8' }).trim());
}

export function hostHas(tool: string): boolean {
  try {
    execFileSync(tool, tool === 'go' ? ['version'] : ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
