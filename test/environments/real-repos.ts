import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchContext } from '../../src/environments/contract';
import { hostCheckout } from '../../src/environments/dependencies';
import { missingTool } from '../support/preconditions';

/** The tree at `sha` in a directory of its own, as the dependency cache gives a fetcher. */
export async function checkoutAt(repo: string, sha: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'chainsmith-src-'));
  await hostCheckout(repo, sha, dir);
  return dir;
}

export function fetchContext(srcDir: string, asOf: Date): FetchContext & { lines: string[] } {
  const lines: string[] = [];
  return {
    srcDir,
    depsDir: mkdtempSync(join(tmpdir(), 'chainsmith-deps-')),
    asOf,
    log: (l) => lines.push(l),
    signal: new AbortController().signal,
    lines,
  };
}

export function commitDate(repo: string, sha: string): Date {
  return new Date(execFileSync('git', ['log', '-1', '--format=%cI', sha], { cwd: repo, encoding: 'utf8' }).trim());
}

export function hostHas(tool: string): boolean {
  return !missingTool(tool);
}
