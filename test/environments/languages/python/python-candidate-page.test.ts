// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../../../../src/environments/host-tools';
import { candidatePage, lockedReleases } from '../../../../src/environments/languages/python/candidate-page';
import { pipDownloadArgs, uvSettings } from '../../../../src/environments/languages/python/fetch';
import { TOOLS_PIP_ENV } from '../../../../src/environments/languages/python/tools-venv';
import { wheelTags } from '../../../../src/environments/languages/python/wheel-tags';
import { fetchFiles, fetchInputs } from '../../../support/python-project';

// A release with compiled wheels for many tags, a pure-Python wheel, and an sdist only (iniconfig 1.0.0).
const PINS = ['MarkupSafe==1.1.1', 'pytest==5.3.2', 'iniconfig==1.0.0'];

/** What `pip download` takes from the index for these pins, as the fetch asked before the page. */
async function fromIndex(python: string, pins: string[], minor: string, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'pins.txt'), pins.join('\n') + '\n');
  const args = pipDownloadArgs(join(dir, 'files'), minor, wheelTags(minor), join(dir, 'pins.txt'));
  const r = await runTool(python, args, { env: TOOLS_PIP_ENV });
  expect(r.code).toBe(0);
  return (await readdir(join(dir, 'files'))).sort();
}

test("a fetch downloads from a page of the pinned releases' own files what pip takes from the index, and the rest from the index", async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-candidate-page-'));
  try {
    const log: string[] = [];
    const { resolution, depsDir } = await fetchFiles(
      root,
      { 'requirements.txt': PINS.join('\n') + '\n' },
      fetchInputs({ python: '3.8' }),
      new Date('2020-12-15T00:00:00Z'),
      (l) => log.push(l),
    );
    const python = join(root, 'tools', 'uv', 'bin', 'python');
    const uv = join(root, 'tools', 'uv', 'bin', 'uv');
    const pinned = resolution.packages.map((p) => `${p.name}==${p.version}`);
    // Less the wheel the fetch builds from iniconfig's sdist (its note names it).
    const fetched = (await readdir(depsDir))
      .filter((f) => /\.(whl|tar\.gz|zip)$/.test(f) && !resolution.notes.some((n) => n.includes(f)))
      .sort();
    expect(fetched).toContain('iniconfig-1.0.0.tar.gz');
    // iniconfig's sdist is the one file uv lists for it, and the pure-Python releases have one wheel each:
    // downloaded as listed, so pip never prepares the sdist's metadata; only MarkupSafe is pip's choice.
    expect(
      log.some((l) =>
        /downloaded as the file uv lists \(.*\); 1 chosen among their releases' own files, 0 from the index/.test(l),
      ),
    ).toBe(true);
    // The same files as pip's choice from the index, for every pin of the fetch (build requirements included).
    // Not so for every release: of an old one with two sdists (setuptools 1.1: .zip and .tar.gz) uv lists
    // the .tar.gz, where pip takes the .zip; none of these pins has two.
    expect(fetched).toEqual(await fromIndex(python, pinned, '3.8', join(root, 'index')));
    expect(fetched).toContain('MarkupSafe-1.1.1-cp38-cp38-manylinux2010_x86_64.whl');
    // Byte for byte as pip downloaded them from the index.
    for (const f of fetched)
      expect((await readFile(join(depsDir, f))).equals(await readFile(join(root, 'index', 'files', f)))).toBe(true);

    // The page holds the releases uv finds a compatible wheel of, but for those with one file pip could take.
    const dir = join(root, 'page');
    await mkdir(dir);
    const page = await candidatePage(uv, python, '3.8', await uvSettings(python), PINS, dir);
    expect(page).toBeDefined();
    expect([...page!.covered].sort()).toEqual(['markupsafe']);
    expect([...page!.only.keys()].sort()).toEqual(['iniconfig', 'pytest']);
    // Another release of the same package is its own page: the pins, not an earlier page, decide.
    const other = join(root, 'other');
    await mkdir(other);
    const older = await candidatePage(uv, python, '3.8', await uvSettings(python), ['MarkupSafe==2.0.1'], other);
    const links = await readFile(older!.page!, 'utf8');
    expect(links).toContain('MarkupSafe-2.0.1-cp38-cp38-manylinux2010_x86_64.whl');
    expect(links).not.toContain('1.1.1');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);

test("a pylock.toml's releases: index files with their hashes, wheels counted, local files marked", () => {
  const hash = (c: string) => c.repeat(64);
  const toml = [
    'lock-version = "1.0"',
    '',
    '[[packages]]',
    'name = "MarkupSafe"',
    'version = "1.1.1"',
    `sdist = { url = "https://example.invalid/MarkupSafe-1.1.1.tar.gz", size = 1, hashes = { sha256 = "${hash('a')}" } }`,
    'wheels = [',
    `    { url = "https://example.invalid/MarkupSafe-1.1.1-cp38-cp38-manylinux1_x86_64.whl", size = 1, hashes = { sha256 = "${hash('b')}" } },`,
    ']',
    '',
    '[[packages]]',
    'name = "iniconfig"',
    'version = "1.0.0"',
    `sdist = { url = "https://example.invalid/iniconfig-1.0.0.tar.gz", size = 1, hashes = { sha256 = "${hash('c')}" } }`,
    '',
    '[[packages]]',
    'name = "local"',
    'version = "1.0"',
    `wheels = [{ path = "/opt/wheels/local-1.0-py3-none-any.whl", hashes = { sha256 = "${hash('d')}" } }]`,
  ].join('\n');
  expect(lockedReleases(toml)).toEqual([
    {
      name: 'markupsafe',
      links: [
        `https://example.invalid/MarkupSafe-1.1.1.tar.gz#sha256=${hash('a')}`,
        `https://example.invalid/MarkupSafe-1.1.1-cp38-cp38-manylinux1_x86_64.whl#sha256=${hash('b')}`,
      ],
      wheels: 1,
      files: 2,
      local: false,
    },
    {
      name: 'iniconfig',
      links: [`https://example.invalid/iniconfig-1.0.0.tar.gz#sha256=${hash('c')}`],
      wheels: 0,
      files: 1,
      local: false,
    },
    { name: 'local', links: [], wheels: 0, files: 1, local: true },
  ]);
  // A lock that is not TOML lists nothing: the fetch asks the index for every pin, as without a page.
  expect(lockedReleases(toml.replace('[[packages]]', '[[packages]'))).toEqual([]);
});
