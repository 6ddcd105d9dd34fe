// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchGopath } from '../../../../src/environments/languages/go/gopath-fetch';
import { missingTool, testIf } from '../../../support/preconditions';
import { fetchContext } from '../../real-repos';

/** One version of a module in a file-system module proxy: its list entry, .info, .mod and .zip. */
async function publish(proxy: string, module: string, version: string, time: string, files: Record<string, string>) {
  const at = join(proxy, module, '@v');
  await mkdir(at, { recursive: true });
  await writeFile(join(at, 'list'), `${version}\n`, { flag: 'a' });
  await writeFile(join(at, `${version}.info`), JSON.stringify({ Version: version, Time: time }));
  await writeFile(join(at, `${version}.mod`), files['go.mod'] ?? `module ${module}\n`);
  const tree = await mkdtemp(join(tmpdir(), 'chainsmith-module-zip-'));
  const root = join(tree, `${module}@${version}`);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  execFileSync('zip', ['-qr', join(at, `${version}.zip`), `${module}@${version}`], { cwd: tree });
  await rm(tree, { recursive: true, force: true });
}

/**
 * A GOPATH-era checkout of 2016 imports example.test/wrap, whose only version (2019) is out of its era
 * and whose go.mod requires example.test/errs v1.2.0 (2019, which adds the Errorf wrap calls); the era's
 * choice of errs would be its oldest, v1.0.0, without Errorf. Whether errs is found after wrap (imported
 * by it alone) or before it (imported by the checkout too, and then raised), the GOPATH gets v1.2.0.
 */
testIf(missingTool('go') ?? missingTool('zip'))(
  "a module out of the era gets the versions its own go.mod requires, not the era's older ones",
  async () => {
    const proxy = await mkdtemp(join(tmpdir(), 'chainsmith-file-proxy-'));
    const saved = { GOPROXY: process.env.GOPROXY, GOSUMDB: process.env.GOSUMDB };
    const dirs: string[] = [proxy];
    try {
      await publish(proxy, 'example.test/errs', 'v1.0.0', '2017-01-01T00:00:00Z', {
        'errs.go': 'package errs\n\nfunc New(s string) error { return nil }\n',
      });
      await publish(proxy, 'example.test/errs', 'v1.2.0', '2019-01-01T00:00:00Z', {
        'go.mod': 'module example.test/errs\n\ngo 1.12\n',
        'errs.go': 'package errs\n\nfunc New(s string) error { return nil }\n',
        'errorf.go': 'package errs\n\nfunc Errorf(f string, a ...interface{}) error { return nil }\n',
      });
      await publish(proxy, 'example.test/wrap', 'v1.0.0', '2019-06-01T00:00:00Z', {
        'go.mod': 'module example.test/wrap\n\ngo 1.12\n\nrequire (\n\texample.test/errs v1.2.0 // indirect\n)\n',
        'wrap.go': 'package wrap\n\nimport "example.test/errs"\n\nvar Err = errs.Errorf("%d", 1)\n',
      });
      Object.assign(process.env, { GOPROXY: `file://${proxy}`, GOSUMDB: 'off' });
      for (const imports of [['example.test/wrap'], ['example.test/errs', 'example.test/wrap']]) {
        const src = await mkdtemp(join(tmpdir(), 'chainsmith-gopath-src-'));
        dirs.push(src);
        const uses = imports.map((i) => `\t"${i}"`).join('\n');
        const values = imports.map((i) => `${i.split('/').pop()}.New`).join(', ');
        await writeFile(
          join(src, 'app.go'),
          `package app // import "example.test/app"\n\nimport (\n${uses}\n)\n\nvar _ = []interface{}{${values.replace('wrap.New', 'wrap.Err')}}\n`,
        );
        const ctx = fetchContext(src, new Date('2016-01-01T00:00:00Z'));
        dirs.push(ctx.depsDir);
        const resolution = await fetchGopath(ctx, 'example.test/app');
        expect(resolution.packages).toEqual([
          { name: 'example.test/errs', version: 'v1.2.0' },
          { name: 'example.test/wrap', version: 'v1.0.0' },
        ]);
        expect(resolution.notes).toContain(
          'example.test/errs v1.2.0: example.test/wrap@v1.0.0 requires it (its go.mod), not v1.0.0: no version published by 2016-01-01: the oldest',
        );
        expect(existsSync(join(ctx.depsDir, 'src/example.test/errs/errorf.go'))).toBe(true);
      }
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
