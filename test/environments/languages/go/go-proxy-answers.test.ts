// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StageError } from '../../../../src/errors';
import { ModuleProxy } from '../../../../src/environments/languages/go/gopath-versions';
import { missingTool, testIf } from '../../../support/preconditions';

/** A module proxy on 127.0.0.1 that answers every request with `status`. */
async function proxyAnswering(status: number): Promise<{ server: Server; url: string }> {
  const server = createServer((_, res) => res.writeHead(status).end(status === 404 ? 'not found' : 'broken'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * A proxy that has no such module says so (404): the import is not served, and the era's other imports
 * are still fetched. A proxy that fails (a 502) says nothing of the module: the fetch fails, and no
 * environment is kept without a module the proxy would serve once it answers again.
 */
testIf(missingTool('go'))(
  "a proxy's 'no such module' is no module; its failure is no answer, and fails the fetch",
  async () => {
    const cache = await mkdtemp(join(tmpdir(), 'chainsmith-go-proxy-answers-'));
    const servers: Server[] = [];
    const proxyAt = async (status: number) => {
      const { server, url } = await proxyAnswering(status);
      servers.push(server);
      return new ModuleProxy({
        cwd: cache,
        env: { GO111MODULE: 'on', GOMODCACHE: cache, GOFLAGS: '', GOPROXY: url, GOSUMDB: 'off' },
        signal: new AbortController().signal,
      });
    };
    try {
      expect(await (await proxyAt(404)).versions('example.test/gone')).toBeUndefined();
      const failing = (await proxyAt(502)).versions('example.test/there');
      await expect(failing).rejects.toThrow(StageError);
      await expect(failing).rejects.toThrow(
        /^go list -m -versions -json example\.test\/there failed, which says nothing of the module: .*502/,
      );
    } finally {
      for (const s of servers) s.close();
      await rm(cache, { recursive: true, force: true });
    }
  },
  120_000,
);

/**
 * Every fetch of a GOPATH-era history asks the proxy about the same modules: one answer serves every
 * fetch of the process (each with its own download cache), per proxy; a failure is asked again.
 */
testIf(missingTool('go'))(
  "the proxy's answers serve every fetch of the process, per proxy, and a failure is asked again",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-proxy-shared-'));
    const asked = new Map<string, number>();
    let failing = true;
    const server = createServer((req, res) => {
      const path = `${req.headers.host} ${req.url}`;
      asked.set(path, (asked.get(path) ?? 0) + 1);
      if (req.url === '/example.test/flaky/@v/list' && failing) return res.writeHead(502).end('broken');
      if (req.url?.startsWith('/example.test/none/')) return res.writeHead(404).end('not found');
      if (req.url?.endsWith('/@v/list')) return res.writeHead(200).end('v1.0.0\nv1.1.0\n');
      // A version's time, and its go.mod (the go command reads the latest's for retractions).
      const v = /^\/(.+)\/@v\/(v[\d.]+)\.(info|mod)$/.exec(req.url ?? '');
      if (v && v[3] === 'info')
        return res
          .writeHead(200)
          .end(JSON.stringify({ Version: v[2], Time: `2015-01-0${v[2] === 'v1.0.0' ? 2 : 3}T03:04:05Z` }));
      if (v) return res.writeHead(200).end(`module ${v[1]}\n`);
      res.writeHead(404).end('not found');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    let n = 0;
    /** A fetch's proxy: its own download cache, the proxy at `host` (two names of the one server). */
    const fetchAt = async (host: string) => {
      const cache = await mkdtemp(join(dir, `cache-${n++}-`));
      return new ModuleProxy({
        cwd: cache,
        env: { GO111MODULE: 'on', GOMODCACHE: cache, GOFLAGS: '', GOPROXY: `http://${host}:${port}`, GOSUMDB: 'off' },
        signal: new AbortController().signal,
      });
    };
    try {
      for (let i = 0; i < 3; i++) {
        const proxy = await fetchAt('127.0.0.1');
        expect(await proxy.versions('example.test/m')).toEqual(['v1.0.0', 'v1.1.0']);
        expect(await proxy.time('example.test/m', 'v1.0.0')).toEqual(new Date('2015-01-02T03:04:05Z'));
        expect(await proxy.versions('example.test/none')).toBeUndefined();
      }
      expect(asked.get(`127.0.0.1:${port} /example.test/m/@v/list`)).toBe(1);
      expect(asked.get(`127.0.0.1:${port} /example.test/m/@v/v1.0.0.info`)).toBe(1);
      expect(asked.get(`127.0.0.1:${port} /example.test/none/@v/list`)).toBe(1);
      // Another proxy is asked for itself.
      expect(await (await fetchAt('localhost')).versions('example.test/m')).toEqual(['v1.0.0', 'v1.1.0']);
      expect(asked.get(`localhost:${port} /example.test/m/@v/list`)).toBe(1);
      // A failure is no answer to keep: the next fetch asks again, and keeps what it is told.
      await expect((await fetchAt('127.0.0.1')).versions('example.test/flaky')).rejects.toThrow(StageError);
      failing = false;
      expect(await (await fetchAt('127.0.0.1')).versions('example.test/flaky')).toEqual(['v1.0.0', 'v1.1.0']);
      expect(await (await fetchAt('127.0.0.1')).versions('example.test/flaky')).toEqual(['v1.0.0', 'v1.1.0']);
      expect(asked.get(`127.0.0.1:${port} /example.test/flaky/@v/list`)).toBe(2);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
