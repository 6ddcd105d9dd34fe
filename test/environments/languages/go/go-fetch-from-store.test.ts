import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchModules } from '../../../../src/environments/languages/go/detect';
import { addToStore, storeSettled } from '../../../../src/environments/store';
import { missingTool, testIf } from '../../../support/preconditions';
import { fetchContext } from '../../real-repos';

/** github.com/pkg/errors's checksums, as the registry gives them and go.sum records them. */
const SUMS: Record<string, string> = {
  'v0.8.1':
    'github.com/pkg/errors v0.8.1 h1:iURUrRGxPUNPdy5/HRSm+Yj6okJ6UtLINN0Q9M4+h3I=\ngithub.com/pkg/errors v0.8.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=\n',
  'v0.9.1':
    'github.com/pkg/errors v0.9.1 h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4=\ngithub.com/pkg/errors v0.9.1/go.mod h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=\n',
};

/** A module requiring github.com/pkg/errors at `version`, with `sum` as its go.sum. */
async function module(dir: string, version: string, sum = SUMS[version]): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'go.mod'),
    `module example.test/roots\n\ngo 1.19\n\nrequire github.com/pkg/errors ${version}\n`,
  );
  await writeFile(join(dir, 'go.sum'), sum);
  await writeFile(
    join(dir, 'roots.go'),
    'package roots\n\nimport "github.com/pkg/errors"\n\n// Wrap wraps.\nfunc Wrap(err error) error { return errors.Wrap(err, "wrapped") }\n',
  );
  return dir;
}

/** Every path under `dir`, sorted. */
async function listing(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true })) as string[]).sort();
}

/**
 * A fetch takes from the repository's store the module versions go.sum names that it holds (linked, not
 * downloaded or extracted again), checked against go.sum by the go command as its own downloads are.
 * A version the store lacks is still downloaded, and a go.sum that disagrees with the store's bytes
 * still fails the fetch; the store is never written through the links.
 */
testIf(missingTool('go'))(
  "a Go fetch takes what the repository's store holds instead of downloading it; a new version is still downloaded, a go.sum the store's bytes do not match still fails",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-fetch-store-'));
    const store = join(dir, 'store');
    const asOf = new Date('2024-01-01T00:00:00Z');

    // The first fetch has no store to read: it downloads, and joins the store.
    const first = fetchContext(await module(join(dir, 'a'), 'v0.8.1'), asOf);
    const a = await fetchModules(first);
    expect(a.packages).toContainEqual({ name: 'github.com/pkg/errors', version: 'v0.8.1' });
    expect(existsSync(join(first.depsDir, 'mod', 'github.com/pkg/errors@v0.8.1', 'errors.go'))).toBe(true);
    await addToStore(join(first.depsDir, 'mod'), store, 'a');
    expect(await storeSettled(store)).toBe(true);

    // The same requirements at another commit: the same build list, its module from the store, the store as it was.
    const held = await listing(store);
    const again = { ...fetchContext(await module(join(dir, 'b'), 'v0.8.1'), asOf), store };
    const b = await fetchModules(again);
    expect(b.packages).toEqual(a.packages);
    expect(b.notes.join('\n')).toMatch(/1 module versions go.sum names taken from the repository's store/);
    const taken = join(again.depsDir, 'mod', 'github.com/pkg/errors@v0.8.1');
    expect((await lstat(taken)).isSymbolicLink()).toBe(true);
    expect(await readlink(taken)).toBe(join(store, 'github.com/pkg/errors@v0.8.1'));
    expect(await listing(store)).toEqual(held);

    // A version the store lacks is downloaded as before.
    const newer = { ...fetchContext(await module(join(dir, 'c'), 'v0.9.1'), asOf), store };
    const c = await fetchModules(newer);
    expect(c.packages).toContainEqual({ name: 'github.com/pkg/errors', version: 'v0.9.1' });
    expect(c.notes.join('\n')).not.toMatch(/taken from the repository's store/);
    const downloaded = join(newer.depsDir, 'mod', 'github.com/pkg/errors@v0.9.1');
    expect((await lstat(downloaded)).isDirectory()).toBe(true);
    expect(existsSync(join(downloaded, 'go113.go'))).toBe(true);

    // A go.sum whose hash is not the bytes the store holds for v0.8.1: the store does not vouch for it, and the download fails the check too.
    const wrong = SUMS['v0.8.1'].replace(
      /v0\.8\.1 h1:\S+/,
      `v0.8.1 h1:${SUMS['v0.9.1'].split(' h1:')[1].split('\n')[0]}`,
    );
    const tampered = { ...fetchContext(await module(join(dir, 'd'), 'v0.8.1', wrong), asOf), store };
    await expect(fetchModules(tampered)).rejects.toThrow(
      /go mod download failed[\s\S]*(checksum mismatch|SECURITY ERROR)/,
    );
    expect(await listing(store)).toEqual(held);
  },
  300_000,
);
