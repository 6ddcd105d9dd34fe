import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A module version a fetched module's go.mod requires. */
export interface Requirement {
  module: string;
  version: string;
}

const REQUIRE_LINE = /^\s*(?:require\s+)?([^\s()"]+)\s+(v\d[^\s/]*)\s*(?:\/\/.*)?$/;

/** The `require` lines of a go.mod (single lines and blocks), without its replace or exclude lines. */
export function goModRequires(gomod: string): Requirement[] {
  const found: Requirement[] = [];
  let inBlock = false;
  for (const raw of gomod.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock && line === ')') inBlock = false;
    else if (/^require\s*\($/.test(line)) inBlock = true;
    else if (inBlock || line.startsWith('require ')) {
      const m = REQUIRE_LINE.exec(line);
      if (m) found.push({ module: m[1], version: m[2] });
    }
  }
  return found;
}

/** What the go.mod at the root of a module's source directory requires; none where it has no go.mod. */
export async function requiresOf(dir: string): Promise<Requirement[]> {
  return goModRequires(await readFile(join(dir, 'go.mod'), 'utf8').catch(() => ''));
}

/**
 * Orders two module versions as semantic versioning does (pseudo-versions are pre-releases of the
 * version before them, as the go command makes them; build metadata such as `+incompatible` is ignored).
 */
export function compareSemver(a: string, b: string): number {
  const split = (v: string) => {
    const bare = v.replace(/^v/, '').replace(/\+.*$/, '');
    const dash = bare.indexOf('-');
    const core = (dash < 0 ? bare : bare.slice(0, dash)).split('.').map(Number);
    return { core, pre: dash < 0 ? [] : bare.slice(dash + 1).split('.') };
  };
  const [x, y] = [split(a), split(b)];
  for (let i = 0; i < 3; i++) if ((x.core[i] ?? 0) !== (y.core[i] ?? 0)) return (x.core[i] ?? 0) - (y.core[i] ?? 0);
  // A release is above its own pre-releases.
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const [p, q] = [x.pre[i], y.pre[i]];
    if (p === q) continue;
    const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}
