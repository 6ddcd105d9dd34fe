import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOPATH } from '../../../../src/environments/languages/go/detect';
import { detectGopath } from '../../../../src/environments/languages/go/gopath';
import { fetchGopath } from '../../../../src/environments/languages/go/gopath-fetch';
import { gitRepoFiles } from '../../../../src/environments/repo-files';
import { ChainRepo } from '../../../support/chain-repo';
import { missingTool, testIf } from '../../../support/preconditions';
import { fetchContext } from '../../real-repos';

/**
 * A checkout of 2019 whose package imports two packages of github.com/hashicorp/hcl (its root and
 * hcl/printer, both missing at first: one module brings both), and whose Godeps.json pins hcl at a
 * revision the proxy does not serve: the fetch falls back to the version of the date and says so.
 */
testIf(missingTool('go'))(
  'fetches a module once for all its imported packages; a locked revision the proxy lacks falls back to the date',
  async () => {
    const src = await mkdtemp(join(tmpdir(), 'chainsmith-gopath-src-'));
    const deps = await mkdtemp(join(tmpdir(), 'chainsmith-gopath-deps-'));
    await writeFile(
      join(src, 'conf.go'),
      'package conf // import "example.test/conf"\n\nimport (\n\t"github.com/hashicorp/hcl"\n\t"github.com/hashicorp/hcl/hcl/printer"\n)\n\nvar _, _ = hcl.Decode, printer.Format\n',
    );
    await mkdir(join(src, 'Godeps'));
    const rev = '0123456789abcdef0123456789abcdef01234567';
    await writeFile(
      join(src, 'Godeps', 'Godeps.json'),
      JSON.stringify({ Deps: [{ ImportPath: 'github.com/hashicorp/hcl/hcl/printer', Rev: rev }] }),
    );
    try {
      const resolution = await fetchGopath(
        { ...fetchContext(src, new Date('2019-06-01T00:00:00Z')), depsDir: deps },
        'example.test/conf',
      );
      expect(resolution.packages).toEqual([{ name: 'github.com/hashicorp/hcl', version: 'v1.0.0' }]);
      expect(resolution.notes).toContain(
        `github.com/hashicorp/hcl v1.0.0: Godeps/Godeps.json pins ${rev}, which the proxy does not serve; the newest version published by 2019-06-01`,
      );
      expect(existsSync(join(deps, 'src/github.com/hashicorp/hcl/hcl/printer/printer.go'))).toBe(true);
      // The checkout's link into the GOPATH was the fetch's own.
      expect(existsSync(join(deps, 'src/example.test/conf'))).toBe(false);
    } finally {
      await rm(src, { recursive: true, force: true });
      await rm(deps, { recursive: true, force: true });
    }
  },
  300_000,
);

/** A repository of the godep era whose dependency lives in its own Godeps/_workspace, as `godep go test` found it. */
testIf(missingTool('go'))(
  "takes what godep's workspace holds from there, and puts the workspace on the image's GOPATH",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-godep-'));
    const repo = await ChainRepo.create(
      join(dir, 'tool'),
      {
        'tool.go': 'package tool // import "example.test/tool"\n\nimport "example.test/dep"\n\nvar _ = dep.V\n',
        'Godeps/Godeps.json': JSON.stringify({ Deps: [{ ImportPath: 'example.test/dep', Rev: 'abc1234' }] }),
        'Godeps/_workspace/src/example.test/dep/dep.go': 'package dep\n\n// V is a value.\nconst V = 1\n',
      },
      new Date('2015-03-01T00:00:00Z'),
    );
    const sha = await repo.head();
    const deps = join(dir, 'deps');
    await mkdir(deps);
    try {
      const recipe = await detectGopath(await gitRepoFiles(repo.path, sha), {
        baseDate: async () => new Date(),
        repo: { path: repo.path, sha },
        settings: {},
      });
      expect(recipe?.env.GOPATH).toBe(`${GOPATH}:/work/repo/Godeps/_workspace`);
      const resolution = await fetchGopath(
        { ...fetchContext(repo.path, new Date()), depsDir: deps },
        'example.test/tool',
      );
      expect(resolution.packages).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
