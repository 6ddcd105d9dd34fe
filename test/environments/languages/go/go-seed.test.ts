import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainRepo } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/** What `script` prints in a throwaway container of `image` (no network). */
function inImage(image: string, script: string): string {
  return execFileSync('docker', ['run', '--rm', '--network', 'none', '--entrypoint', 'sh', image, '-c', script], {
    encoding: 'utf8',
  });
}

/** The entries of an image's own Go build cache. */
const cacheEntries = (image: string) =>
  new Set(inImage(image, 'cd /home/agent/.cache/go-build && find . -type f -name "*-d" | sort').split('\n'));

/**
 * A Go module whose resolution changes (a required version, here of a module replaced by a local
 * folder, so nothing is fetched) gets a new environment, built from the earlier era's image: its
 * build cache is kept, so what compiled then is not compiled again.
 */
testIf(missingTool('go'))(
  "a later era of a Go module is built from the earlier era's image, whose build cache it keeps",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-eras-'));
    const gomod = (version: string) =>
      `module example.test/eras\n\ngo 1.19\n\nrequire example.test/dep ${version}\n\nreplace example.test/dep => ./dep\n`;
    const repo = await ChainRepo.create(join(dir, 'eras'), {
      'go.mod': gomod('v0.0.1'),
      'dep/go.mod': 'module example.test/dep\n\ngo 1.19\n',
      'dep/dep.go': 'package dep\n\n// One is one.\nfunc One() int { return 1 }\n',
      'eras.go':
        'package eras\n\nimport "example.test/dep"\n\n// Two is two.\nfunc Two() int { return dep.One() + 1 }\n',
      'eras_test.go':
        'package eras\n\nimport "testing"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(Two())\n\t}\n}\n',
    });
    const first = await repo.pr(1, 'A comment', {
      'eras.go':
        '// Package eras adds.\n' +
        'package eras\n\nimport "example.test/dep"\n\n// Two is two.\nfunc Two() int { return dep.One() + 1 }\n',
    });
    await repo.commit('Require dep v0.0.2', { 'go.mod': gomod('v0.0.2') });
    const second = await repo.pr(2, 'Another comment', {
      'dep/dep.go': '// Package dep gives one.\npackage dep\n\n// One is one.\nfunc One() int { return 1 }\n',
    });
    const environments = testEnvironments(docker);
    const early = await environments.forStage(repo.chain('gen/go-eras', [first]), 0);
    const late = await environments.forStage(repo.chain('gen/go-eras', [second]), 0);
    // Two resolutions, two environments; the later one built on the earlier.
    expect(late.image).not.toBe(early.image);
    expect(late.manifest.resolution?.packages).toContainEqual({ name: 'example.test/dep', version: 'v0.0.2' });
    expect(late.manifest.seed).toMatchObject({ image: early.image, builtAt: first.baseSha });
    // Every build-cache entry of the earlier era is there; the build added to them.
    const before = cacheEntries(early.image);
    const after = cacheEntries(late.image);
    expect([...before].filter((e) => !after.has(e))).toEqual([]);
    expect(after.size).toBeGreaterThan(before.size);
  },
  600_000,
);
