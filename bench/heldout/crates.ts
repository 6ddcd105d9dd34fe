import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { must, type Release } from './release';

/**
 * A crate's last `count` releases (pre-releases and yanked ones left out, as cargo resolves), each
 * from the `.crate` the host's registry serves (cargo resolves and fetches them into a CARGO_HOME of
 * the bench's own). The index records no publication time; a release is dated by its `.crate`'s
 * entries where they carry a real one (`crateDate`), and undated otherwise.
 */
export async function crateReleases(name: string, count: number, work: string): Promise<Release[]> {
  const probe = join(work, 'probe');
  const env = { CARGO_HOME: join(work, 'cargo-home') };
  const versions: string[] = [];
  let below = '';
  for (let i = 0; i < count; i++) {
    await mkdir(join(probe, 'src'), { recursive: true });
    await writeFile(join(probe, 'src', 'lib.rs'), '');
    const req = below ? `<${below}` : '*';
    await writeFile(
      join(probe, 'Cargo.toml'),
      `[package]\nname = "heldout-probe"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n${name} = "${req}"\n`,
    );
    await must('cargo', ['generate-lockfile', '-q'], { cwd: probe, env });
    await must('cargo', ['fetch', '-q'], { cwd: probe, env });
    const lock = await must('cat', [join(probe, 'Cargo.lock')]);
    const version = new RegExp(`name = "${name}"\\nversion = "([^"]+)"`).exec(lock)?.[1];
    if (!version) throw new Error(`${name}: cargo resolved no release ${req}`);
    versions.unshift(version);
    below = version;
  }
  const srcRoot = join(env.CARGO_HOME, 'registry', 'src');
  const [index] = await readdir(srcRoot);
  const cache = join(env.CARGO_HOME, 'registry', 'cache', index);
  return Promise.all(
    versions.map(async (version) => {
      const tree = join(work, 'trees', `${name}-${version}`);
      await must('mkdir', ['-p', tree]);
      await must('cp', ['-r', `${join(srcRoot, index, `${name}-${version}`)}/.`, tree]);
      const date = await crateDate(join(cache, `${name}-${version}.crate`));
      return { version, dir: tree, ...(date ? { date } : {}) };
    }),
  );
}

/** The one time recent cargo stamps on every packaged file (older releases stamp the epoch). */
const CARGO_FIXED_MTIME = '2006-07-24T01:21:28Z';

/**
 * The newest modification time among a `.crate`'s entries, as ISO time, where it is a real one: cargo
 * of 2020 and before kept the packaged files' times and stamped the files it wrote (the normalised
 * Cargo.toml) at packaging, so the newest is the release's packaging time (hex 0.4.2: 2020-02-18, its
 * publication's day). Later cargo stamps every entry with the epoch or one fixed time: undefined.
 */
export async function crateDate(crate: string): Promise<string | undefined> {
  const listing = await must('tar', ['-tvzf', crate, '--full-time'], { env: { TZ: 'UTC' } });
  // Files only: a directory's entry (cargo writes none) would carry the time it was archived.
  const stamps = [...listing.matchAll(/^-.* (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) /gm)]
    .map((m) => `${m[1]}T${m[2]}Z`)
    .filter((t) => t > CARGO_FIXED_MTIME)
    .sort();
  return stamps.pop();
}
