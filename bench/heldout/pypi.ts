import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { downloadListed } from '../../src/environments/languages/python/candidate-page';
import { lastReleases, must, type Release } from './release';

/**
 * A PyPI project's last `count` releases (pre-releases left out, as pip lists them), each from its
 * sdist, dated by the sdist's upload time. The index is the host's: pip lists the versions and uv
 * names each sdist and its hash (both read the host's configuration); the sdist is downloaded as
 * validation's own fetch downloads a listed file.
 */
export async function pypiReleases(name: string, count: number, work: string): Promise<Release[]> {
  const listed = await must('pip', ['index', 'versions', name]);
  const line = /Available versions: (.*)/.exec(listed)?.[1];
  if (!line) throw new Error(`${name}: pip lists no versions`);
  const versions = lastReleases(name, line.split(', ').reverse(), count);
  const uv = join(process.env.HOME ?? '/root', '.chainsmith', 'tools', 'uv', 'bin', 'uv');
  const releases: Release[] = [];
  for (const version of versions) {
    const dir = join(work, `${name}-${version}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'pins.txt'), `${name}==${version}\n`);
    await must(
      uv,
      ['pip', 'compile', 'pins.txt', '--no-deps', '--format', 'pylock.toml', '-o', 'pylock.toml', '--quiet'],
      {
        cwd: dir,
      },
    );
    const lock = await readFile(join(dir, 'pylock.toml'), 'utf8');
    const sdist = /^sdist = \{ url = "([^"]+)", upload-time = (\S+),.*sha256 = "([0-9a-f]{64})"/m.exec(lock);
    if (!sdist) throw new Error(`${name} ${version}: no sdist on the index`);
    const got = await downloadListed('python3', [`${sdist[1]}#sha256=${sdist[3]}`], dir, {});
    if (!got.done.size) throw new Error(`${name} ${version}: sdist not downloaded (${got.firstFailure})`);
    const archive = (await readdir(dir)).find((f) => /\.(tar\.gz|zip)$/.test(f))!;
    const unpacked = join(work, `${name}-${version}-src`);
    await must('python3', [
      '-c',
      'import shutil, sys; shutil.unpack_archive(sys.argv[1], sys.argv[2])',
      join(dir, archive),
      unpacked,
    ]);
    const top = await readdir(unpacked);
    const tree = top.length === 1 ? join(unpacked, top[0]) : unpacked;
    releases.push({ version, date: sdist[2], dir: tree });
  }
  return releases;
}
