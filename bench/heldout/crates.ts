import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { must, type Release } from './release';

/**
 * A crate's last `count` releases (pre-releases and yanked ones left out, as cargo resolves), each
 * from the `.crate` the host's registry serves (cargo resolves and fetches them into a CARGO_HOME of
 * the bench's own). The index records no publication time, and a `.crate`'s files carry a fixed one,
 * so these releases are undated.
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
  return Promise.all(
    versions.map(async (version) => {
      const tree = join(work, 'trees', `${name}-${version}`);
      await must('mkdir', ['-p', tree]);
      await must('cp', ['-r', `${join(srcRoot, index, `${name}-${version}`)}/.`, tree]);
      return { version, dir: tree };
    }),
  );
}
