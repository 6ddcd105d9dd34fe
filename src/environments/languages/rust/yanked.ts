import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Crates yanked after the stage's date. Without a Cargo.lock, cargo picks no yanked version, so a
 * requirement whose every release of the stage's date was yanked since (flate2 2021's cloudflare-zlib-sys
 * 0.3, mio 0.6's net2 before 0.2.36) fails a resolution as of that date, where the project resolved it
 * then. cargo keeps a yanked version a lock already holds: the dated resolution is made with the crate
 * replaced by a stand-in of that version (`[patch.crates-io]`), which the lock then names from the
 * registry again for cargo to fill in (yanked.ts's callers, fetchCrates).
 */

export interface YankedPin {
  name: string;
  version: string;
  /** The requirement cargo could not meet ('^0.3.0'). */
  req: string;
}

/**
 * The requirement a dated resolution failed on where cargo lists its candidates as yanked or unavailable
 * (published after the date) and nothing else (`failed to select a version for the requirement
 * `net2 = "^0.2.29"``, `version 0.2.33 is yanked`, …), with the yanked ones.
 */
export function yankedRequirement(output: string): { name: string; req: string; yanked: string[] } | undefined {
  const m = /failed to select a version for the requirement `(\S+) = "([^"]*)"`((?:\n\s+version \S+ is \w+)+)/.exec(
    output,
  );
  if (!m) return undefined;
  const lines = [...m[3].matchAll(/version (\S+) is (\w+)/g)];
  if (lines.some((l) => l[2] !== 'yanked' && l[2] !== 'unavailable')) return undefined;
  const yanked = lines.filter((l) => l[2] === 'yanked').map((l) => l[1]);
  return yanked.length ? { name: m[1], req: m[2], yanked } : undefined;
}

/** One release of a crate as the registry's index lists it. */
interface IndexEntry {
  vers: string;
  pubtime?: string;
  features?: Record<string, string[]>;
  features2?: Record<string, string[]>;
  deps?: IndexDependency[];
}

interface IndexDependency {
  /** The name the crate uses; `package` the registry's where it renames it. */
  name: string;
  req: string;
  features?: string[];
  optional?: boolean;
  default_features?: boolean;
  target?: string | null;
  kind?: 'normal' | 'build' | 'dev';
  package?: string;
  /** Another registry's index: not the stand-in's business. */
  registry?: string | null;
}

/**
 * The crate's releases as cargo last read them from its registry's index, from cargo's own cache of it
 * (CARGO_HOME/registry/index/*\/.cache/: a header, then each release's version and index line, NUL
 * between them); where several registries' caches hold the crate, the one cargo wrote last. Each line
 * carries `pubtime`, when the registry gives it (crates.io's index does since 2025).
 */
async function indexEntries(name: string): Promise<IndexEntry[]> {
  const lower = name.toLowerCase();
  const sub =
    lower.length <= 2
      ? [String(lower.length), lower]
      : lower.length === 3
        ? ['3', lower[0], lower]
        : [lower.slice(0, 2), lower.slice(2, 4), lower];
  const index = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'registry', 'index');
  let newest: { path: string; time: number } | undefined;
  for (const registry of await readdir(index).catch(() => [])) {
    const path = join(index, registry, '.cache', ...sub);
    if (!existsSync(path)) continue;
    const time = (await stat(path)).mtimeMs;
    if (!newest || time > newest.time) newest = { path, time };
  }
  if (!newest) return [];
  const entries: IndexEntry[] = [];
  for (const part of (await readFile(newest.path, 'latin1')).split('\0')) {
    if (!part.startsWith('{')) continue;
    try {
      entries.push(JSON.parse(Buffer.from(part, 'latin1').toString('utf8')) as IndexEntry);
    } catch {
      // Not an index line: skipped.
    }
  }
  return entries;
}

/**
 * Of the yanked versions, the newest published by `asOf` (from the index's `pubtime`), with a
 * stand-in crate for it written under `dir`: its name, version, features and dependencies as the index
 * lists them (dev-dependencies aside), so that what dependents ask of it resolves, and what it needs
 * resolves as of the date too. Undefined where the index gives no time for them.
 */
export async function yankedStandIn(
  failed: { name: string; req: string; yanked: string[] },
  asOf: Date,
  dir: string,
): Promise<(YankedPin & { path: string }) | undefined> {
  const entries = await indexEntries(failed.name);
  const chosen = [...failed.yanked].reverse().find((v) => {
    const time = entries.find((e) => e.vers === v)?.pubtime;
    return time !== undefined && Date.parse(time) <= asOf.getTime();
  });
  const entry = entries.find((e) => e.vers === chosen);
  if (!chosen || !entry) return undefined;
  const path = join(dir, `${failed.name}-${chosen}`);
  await mkdir(join(path, 'src'), { recursive: true });
  await writeFile(join(path, 'Cargo.toml'), standInManifest(failed.name, entry));
  await writeFile(join(path, 'src', 'lib.rs'), '');
  return { name: failed.name, version: chosen, req: failed.req, path };
}

/** A Cargo.toml of the release an index entry describes (JSON strings are TOML's basic strings). */
function standInManifest(name: string, entry: IndexEntry): string {
  const q = (s: string) => JSON.stringify(s);
  const tables = new Map<string, string[]>();
  for (const d of entry.deps ?? []) {
    if (d.kind === 'dev' || d.registry) continue;
    const kind = d.kind === 'build' ? 'build-dependencies' : 'dependencies';
    const table = d.target ? `target.${q(d.target)}.${kind}` : kind;
    const fields = [
      `version = ${q(d.req)}`,
      ...(d.features?.length ? [`features = [${d.features.map(q).join(', ')}]`] : []),
      ...(d.optional ? ['optional = true'] : []),
      ...(d.default_features === false ? ['default-features = false'] : []),
      ...(d.package ? [`package = ${q(d.package)}`] : []),
    ];
    tables.set(table, [...(tables.get(table) ?? []), `${q(d.name)} = { ${fields.join(', ')} }`]);
  }
  const features = { ...entry.features, ...entry.features2 };
  return [
    `[package]\nname = ${q(name)}\nversion = ${q(entry.vers)}\n`,
    `[features]\n${Object.entries(features)
      .map(([f, on]) => `${q(f)} = [${on.map(q).join(', ')}]\n`)
      .join('')}`,
    ...[...tables].map(([table, lines]) => `[${table}]\n${lines.join('\n')}\n`),
  ].join('\n');
}

/**
 * The lock a resolution with stand-ins wrote, each stand-in (a path package: no `source`) named as
 * `registry`'s again: cargo, asked to update only the workspace's own packages, then keeps the yanked
 * version and fills in its checksum.
 */
export function registryPins(lock: string, pins: YankedPin[], registry: string): string {
  let out = lock;
  for (const pin of pins) {
    const at = new RegExp(
      `^(name = "${pin.name.replace(/[-.]/g, '\\$&')}"\\nversion = "${pin.version.replace(/\./g, '\\.')}"\\n)(?!source = )`,
      'm',
    );
    out = out.replace(at, `$1source = "${registry}"\n`);
  }
  return out;
}

/** The registry the workspace's own dependencies are most often from, as cargo names it (`registry+…`), without resolving. */
export function workspaceRegistry(metadata: string): string | undefined {
  const counts = new Map<string, number>();
  for (const m of metadata.matchAll(/"source":"(registry\+[^"]+)"/g)) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}
