// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../../src/process/run';
import { fetchFiles, fetchInputs } from '../../../support/python-project';

/** The names and bytes of an archive's members (a wheel, an sdist), read with the host's Python. */
async function members(archive: string): Promise<Record<string, string>> {
  const script = `import sys, json, zipfile, tarfile, hashlib
p = sys.argv[1]
out = {}
if p.endswith('.whl'):
    z = zipfile.ZipFile(p)
    for n in z.namelist(): out[n] = hashlib.sha256(z.read(n)).hexdigest()
else:
    t = tarfile.open(p)
    for m in t.getmembers():
        if m.isfile(): out[m.name] = hashlib.sha256(t.extractfile(m).read()).hexdigest()
print(json.dumps(out))`;
  const r = await run('python3', ['-c', script, archive]);
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

// iniconfig 1.0.0 was published as an sdist only, whose setup.py needs setuptools_scm (setup_requires):
// the offline image build could not build it, so the host builds it into a wheel for the image.
test('a pure-Python sdist a fetch pins is built on the host into a wheel of that release, its module as the sdist has it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-sdist-wheel-'));
  try {
    const { resolution, depsDir } = await fetchFiles(
      root,
      { 'requirements.txt': 'iniconfig==1.0.0\n' },
      fetchInputs({ python: '3.8' }),
      new Date('2020-06-15T00:00:00Z'),
    );
    const files = (await readdir(depsDir)).filter((f) => /^iniconfig-/.test(f)).sort();
    expect(files).toEqual(['iniconfig-1.0.0-py3-none-any.whl', 'iniconfig-1.0.0.tar.gz']);
    expect(resolution.notes).toContain('built on the host from sdists (pure Python): iniconfig-1.0.0-py3-none-any.whl');

    const wheel = await members(join(depsDir, 'iniconfig-1.0.0-py3-none-any.whl'));
    const sdist = await members(join(depsDir, 'iniconfig-1.0.0.tar.gz'));
    // The wheel's module is the sdist's, byte for byte, and its metadata names that release.
    expect(wheel['iniconfig.py']).toBe(sdist['iniconfig-1.0.0/iniconfig.py']);
    expect(Object.keys(wheel)).toEqual(
      expect.arrayContaining(['iniconfig-1.0.0.dist-info/METADATA', 'iniconfig-1.0.0.dist-info/RECORD']),
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);
