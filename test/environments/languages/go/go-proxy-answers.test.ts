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
