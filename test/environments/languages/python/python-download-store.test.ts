// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readdir, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectPython } from '../../../../src/environments/languages/python/detect';
import { fileRelease } from '../../../../src/environments/languages/python/download-store';
import { buildResolutionKey } from '../../../../src/environments/languages/python/build-resolutions';

/** A pyproject project requiring `requirement`, fetched as of `asOf` (mid-2023) with the given tools directory. */
async function fetchProject(root: string, name: string, requirement: string, toolsDir: string, asOf = '2023-06-01') {
  const src = join(root, `${name}-src`);
  await mkdir(join(src, 'acme'), { recursive: true });
  await writeFile(join(src, 'acme', '__init__.py'), '');
  await writeFile(
    join(src, 'pyproject.toml'),
    [
      '[project]',
      'name = "acme"',
      'version = "0.1.0"',
      'requires-python = ">=3.8"',
      `dependencies = ["${requirement}"]`,
      '',
      '[build-system]',
      'requires = ["setuptools>=61"]',
      'build-backend = "setuptools.build_meta"',
      '',
    ].join('\n'),
  );
  const files = {
    rootFiles: new Set(['pyproject.toml', 'acme']),
    read: (p: string) => readFile(join(src, p), 'utf8').catch(() => undefined),
  };
  const recipe = (await detectPython(files))!;
  const depsDir = join(root, `${name}-deps`);
  await mkdir(depsDir);
  const log: string[] = [];
  const resolution = await recipe.fetch!({
    srcDir: src,
    depsDir,
    asOf: new Date(`${asOf}T00:00:00Z`),
    log: (l) => log.push(l),
    signal: new AbortController().signal,
    toolsDir,
  });
  const downloads = log.filter((l) => l.startsWith('downloading '));
  return { resolution, files: (await readdir(depsDir)).sort(), downloads };
}

test('a fetch takes the pins an earlier fetch downloaded from the store, and downloads a pin it lacks', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-download-store-'));
  const tools = join(root, 'tools');
  const first = await fetchProject(root, 'first', 'six', tools);
  const pins = first.resolution.packages.length;
  expect(first.resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
  expect(first.downloads).toEqual([
    expect.stringMatching(new RegExp(`^downloading ${pins} Python packages for CPython [\\d.]+$`)),
  ]);

  // The same pins again: nothing downloaded, the same files in the new dependency directory.
  const again = await fetchProject(root, 'again', 'six', tools);
  expect(again.downloads).toEqual([
    expect.stringMatching(new RegExp(`^downloading 0 .*\\(${pins} more from the download store\\)$`)),
  ]);
  expect(again.files).toEqual(first.files);

  // Another six: that pin is downloaded, the rest come from the store, and the stored six is not taken for it.
  const older = await fetchProject(root, 'older', 'six==1.15.0', tools);
  expect(older.downloads).toEqual([
    expect.stringMatching(new RegExp(`^downloading 1 .*\\(${pins - 1} more from the download store\\)$`)),
  ]);
  const sixes = older.files.filter((f) => /^six-/.test(f));
  expect(sixes).toEqual([expect.stringMatching(/^six-1\.15\.0-/)]);
  expect(older.files.filter((f) => !/^six-/.test(f))).toEqual(first.files.filter((f) => !/^six-/.test(f)));
  await rm(root, { recursive: true, force: true });
}, 600_000);

test("distribution files are matched to a pin's name and version, wheels and sdists alike", () => {
  expect(fileRelease('Jinja2-3.1.2-py3-none-any.whl', '3.1.2')).toBe('jinja2');
  expect(fileRelease('typing_extensions-4.7.1-py3-none-any.whl', '4.7.1')).toBe('typing-extensions');
  expect(fileRelease('zope.interface-6.0.tar.gz', '6.0')).toBe('zope-interface');
  expect(fileRelease('python-dateutil-2.8.2.tar.gz', '2.8.2')).toBe('python-dateutil');
  expect(fileRelease('six-1.16.0-py2.py3-none-any.whl', '1.15.0')).toBeUndefined();
  expect(fileRelease('requirements.txt', '1.0')).toBeUndefined();
});

test('the build requirements resolve once per lines, Python and date: a repeat takes the kept resolution, another date resolves anew', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-build-resolutions-'));
  const tools = join(root, 'tools');
  const kept = () => readdir(join(tools, 'build-resolutions')).catch(() => []);
  const version = (r: { resolution: { packages: Array<{ name: string; version: string }> } }, name: string) =>
    r.resolution.packages.find((p) => p.name.toLowerCase() === name)?.version;
  const first = await fetchProject(root, 'first', 'six', tools);
  expect(await kept()).toHaveLength(1);
  const again = await fetchProject(root, 'again', 'six', tools);
  expect(await kept()).toHaveLength(1);
  expect(again.resolution.packages).toEqual(first.resolution.packages);
  // A year earlier: not the kept resolution, an older setuptools.
  const older = await fetchProject(root, 'older', 'six', tools, '2022-06-01');
  expect(await kept()).toHaveLength(2);
  expect(version(older, 'setuptools')).not.toEqual(version(first, 'setuptools'));
  expect(Number(version(older, 'setuptools')!.split('.')[0])).toBeLessThan(
    Number(version(first, 'setuptools')!.split('.')[0]),
  );
  await rm(root, { recursive: true, force: true });
}, 600_000);

test('build requirements naming a path or URL are not kept', () => {
  expect(buildResolutionKey(['setuptools>=61', 'wheel'], ['3.8'])).toMatch(/^[0-9a-f]{24}$/);
  expect(buildResolutionKey(['setuptools', './backend'], ['3.8'])).toBeUndefined();
  expect(buildResolutionKey(['acme @ https://example.test/acme.whl'], ['3.8'])).toBeUndefined();
  expect(buildResolutionKey(['setuptools'], ['3.8'])).not.toEqual(buildResolutionKey(['setuptools'], ['3.9']));
});
