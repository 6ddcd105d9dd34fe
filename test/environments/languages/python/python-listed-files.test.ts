// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LockedRelease,
  downloadListed,
  listedFileName,
  onlyChoice,
} from '../../../../src/environments/languages/python/candidate-page';

const link = (file: string) => `https://files.example.invalid/packages/${file}#sha256=${'a'.repeat(64)}`;
const release = (files: string[], more: Partial<LockedRelease> = {}): LockedRelease => ({
  name: 'pkg',
  links: files.map(link),
  wheels: files.filter((f) => f.endsWith('.whl')).length,
  files: files.length,
  local: false,
  ...more,
});

test('a release is downloaded directly only where pip could take no other file of those uv lists', () => {
  // An sdist only: pip is offered no wheel it could install.
  expect(onlyChoice(release(['pkg-1.0.tar.gz']))).toBe(link('pkg-1.0.tar.gz'));
  // One pure-Python wheel and the sdist: pip ranks the wheel first.
  expect(onlyChoice(release(['pkg-1.0.tar.gz', 'pkg-1.0-py3-none-any.whl']))).toBe(link('pkg-1.0-py3-none-any.whl'));
  // A platform wheel: pip ranks it among tags it is given that uv does not list (linux_x86_64), so pip chooses.
  expect(onlyChoice(release(['pkg-1.0.tar.gz', 'pkg-1.0-cp38-cp38-manylinux2010_x86_64.whl']))).toBeUndefined();
  // Two wheels, pure and not: pip chooses.
  expect(
    onlyChoice(release(['pkg-1.0-py3-none-any.whl', 'pkg-1.0-cp38-cp38-manylinux2014_x86_64.whl'])),
  ).toBeUndefined();
  // A file listed without a sha256 (not among the links): what pip would take is not known.
  expect(onlyChoice(release(['pkg-1.0.tar.gz'], { files: 2 }))).toBeUndefined();
  // Files in a local directory: pip takes them from there.
  expect(onlyChoice(release(['pkg-1.0.tar.gz'], { local: true }))).toBeUndefined();
});

test("a listed file is saved under its URL path's last segment, decoded; a name that could leave the directory is pip's", () => {
  expect(listedFileName(`https://h.invalid/p/pkg-1.0.tar.gz?token=secret#sha256=${'a'.repeat(64)}`)).toBe(
    'pkg-1.0.tar.gz',
  );
  expect(listedFileName('https://h.invalid/p/pkg%2B1-1.0.tar.gz')).toBe('pkg+1-1.0.tar.gz');
  expect(listedFileName('https://h.invalid/p/..%2Fescape.tar.gz')).toBeUndefined();
  expect(listedFileName('https://h.invalid/p/a%2Fb.tar.gz')).toBeUndefined();
  expect(listedFileName('https://h.invalid/p/')).toBeUndefined();
  expect(listedFileName('https://h.invalid/p/bad%E0.tar.gz')).toBeUndefined();
});

test('listed files are downloaded through ALL_PROXY; after a connection failure the rest are left to pip', async () => {
  // The stand-in index is also the proxy: urllib asks a proxy for the whole URL.
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const file = /^http:\/\/index\.invalid\/p\/([^?]+)/.exec(req.url ?? '')?.[1];
    if (file === 'a-1.0.tar.gz' || file === 'b-1.0.tar.gz' || file === 'd-1.0.tar.gz') res.end(file);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-listed-files-'));
  try {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const listed = (url: string, content: string) => `${url}#sha256=${sha(content)}`;
    const links = [
      listed('http://index.invalid/p/a-1.0.tar.gz?token=secret', 'a-1.0.tar.gz'),
      listed('http://index.invalid/p/gone-1.0.tar.gz', ''),
      listed('http://index.invalid/p/b-1.0.tar.gz', 'not what the index serves'),
      listed('http://127.0.0.1:1/p/c-1.0.tar.gz', ''),
      listed('http://index.invalid/p/d-1.0.tar.gz', 'd-1.0.tar.gz'),
    ];
    const dest = join(root, 'files');
    await mkdir(dest);
    const noProxy = {
      no_proxy: '127.0.0.1',
      NO_PROXY: '127.0.0.1',
      http_proxy: '',
      HTTP_PROXY: '',
      https_proxy: '',
      HTTPS_PROXY: '',
    };
    const env = { ...noProxy, ALL_PROXY: proxy, all_proxy: proxy };
    const got = await downloadListed('python3', links, dest, env);
    expect([...got.done]).toEqual([links[0]]);
    // Saved under its path's name, without the query; the failed ones leave nothing, not even a .part.
    expect(await readdir(dest)).toEqual(['a-1.0.tar.gz']);
    // An HTTP status or a wrong file moves on; a refused connection (c, not through the proxy: no_proxy) stops.
    expect(got.firstFailure).toBe('gone-1.0.tar.gz: HTTP 404');
    expect(asked.some((u) => u.includes('d-1.0'))).toBe(false);
  } finally {
    server.close();
    await rm(root, { recursive: true, force: true });
  }
});
