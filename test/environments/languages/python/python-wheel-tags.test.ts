// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonFetch } from '../../../../src/environments/languages/python/fetch';
import { wheelTags } from '../../../../src/environments/languages/python/wheel-tags';
import { fetchInputs } from '../../../support/python-project';

/** A project whose only requirement is `requirement` (a package with a C extension), fetched for `python` as of 2020. */
async function fetchFor(root: string, name: string, python: string, installerPip?: string): Promise<string[]> {
  const src = join(root, `${name}-src`);
  const depsDir = join(root, `${name}-deps`);
  await mkdir(src);
  await mkdir(depsDir);
  await writeFile(join(src, 'requirements.txt'), 'MarkupSafe==1.1.1\n');
  const inputs = fetchInputs({ python, ...(installerPip ? { installerPip } : {}) });
  await pythonFetch(inputs)({
    srcDir: src,
    depsDir,
    asOf: new Date('2020-01-15T00:00:00Z'),
    log: () => undefined,
    signal: new AbortController().signal,
    toolsDir: join(root, 'tools'),
  });
  return (await readdir(depsDir)).filter((f) => /^MarkupSafe-/i.test(f));
}

test('a fetch for CPython 3.6 takes the compiled wheel of its own ABI (cp36m) that its pip installs, not the sdist', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-wheel-tags-'));
  try {
    // Python 3.6's own pip (18.1) installs manylinux1 wheels only.
    expect(await fetchFor(root, 'pip18', '3.6', '18.1')).toEqual(['MarkupSafe-1.1.1-cp36-cp36m-manylinux1_x86_64.whl']);
    // A pip that reads manylinux2010 takes the newer wheel of the same release.
    expect(await fetchFor(root, 'pip20', '3.6', '20.3')).toEqual([
      'MarkupSafe-1.1.1-cp36-cp36m-manylinux2010_x86_64.whl',
    ]);
    // 3.8 has no `m` ABI: its own wheel, for uv (which reads every tag).
    expect(await fetchFor(root, 'uv38', '3.8')).toEqual(['MarkupSafe-1.1.1-cp38-cp38-manylinux2010_x86_64.whl']);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);

test('the ABIs and platforms a fetch asks pip for follow the Python and the pip that installs them', () => {
  expect(wheelTags('3.7', '18.1')).toEqual({
    abis: ['cp37m', 'cp37', 'abi3', 'none'],
    platforms: ['manylinux1_x86_64', 'linux_x86_64'],
  });
  expect(wheelTags('3.7', '19.3').platforms).toEqual([
    'manylinux2014_x86_64',
    'manylinux2010_x86_64',
    'manylinux1_x86_64',
    'linux_x86_64',
  ]);
  const uv = wheelTags('3.12');
  expect(uv.abis).toEqual(['cp312', 'abi3', 'none']);
  expect(uv.platforms[0]).toBe('manylinux_2_36_x86_64');
  expect(uv.platforms).toContain('manylinux1_x86_64');
});
