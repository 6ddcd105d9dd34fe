// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { chown, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseChain } from '../../bench/heldout/release-chain';
import { git } from '../../src/git';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'release-chain-'));
});
afterEach(() => rm(work, { recursive: true, force: true }));

const release = async (version: string, uid: number) => {
  const dir = join(work, version);
  await mkdir(join(dir, 'pkg'), { recursive: true });
  await writeFile(join(dir, 'pkg', 'version.py'), `VERSION = '${version}'\n`);
  // An archive unpacked by root keeps its packager's owner, top directory included.
  await chown(dir, uid, uid);
  return { version, dir };
};

const asRoot = process.getuid?.() === 0 ? test : test.skip;

asRoot('releases packed by another user become a repository the runner owns, one PR a release', async () => {
  const { repo, chain } = await releaseChain(
    'acme/pkg',
    [await release('1.0', 1001), await release('1.1', 1001)],
    join(work, 'out'),
  );
  expect(chain.prs.map((pr) => pr.files.map((f) => f.path))).toEqual([['pkg/version.py']]);
  expect(await git(repo, ['show', 'main:pkg/version.py'])).toBe("VERSION = '1.1'\n");
});
