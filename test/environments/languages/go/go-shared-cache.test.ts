import Docker from 'dockerode';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutLines } from '../../../../src/container/checkout';
import { DockerContainer } from '../../../../src/container/docker-container';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * Go's build cache is shared by gold validation's sandboxes: a stage whose base is the previous
 * stage's merge finds that merge's package compiled. An agent's sandbox does not get it.
 */
testIf(missingTool('go'))(
  "gold sandboxes share Go's build cache: the next stage's base is compiled already, and only gold sandboxes mount it",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gocache-'));
    const fn = (n: number) =>
      `package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b + ${n} - ${n} }\n\n// Version is the package's.\nconst Version = ${n}\n`;
    const repo = await ChainRepo.create(join(dir, 'calc'), {
      'go.mod': 'module example.test/calc\n\ngo 1.19\n',
      'calc.go': fn(1),
      'calc_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n',
    });
    const first = await repo.pr(1, 'Version 2', {
      'calc.go': fn(2),
      'version_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestVersion(t *testing.T) {\n\tif Version != 2 {\n\t\tt.Fatal(Version)\n\t}\n}\n',
    });
    const second = await repo.pr(2, 'Version 3', {
      'calc.go': fn(3),
      'version_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestVersion(t *testing.T) {\n\tif Version != 3 {\n\t\tt.Fatal(Version)\n\t}\n}\n',
    });
    const chain = repo.chain('gen/calc', [first, second]);
    // A data directory of its own: its shared cache starts empty.
    const environments = testEnvironments(docker, {}, join(dir, 'data'));
    const deps = goldDeps(docker, dir, environments);
    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['example.test/calc/TestVersion'],
    });
    // Seeded once from the image's own cache (its setup compiled the project at the first commit), then filled by the gold runs.
    const cached = await readdir(join(dir, 'data', 'build-cache', 'go'));
    expect(cached).toContain(`.seeded-${(await environments.forStage(chain, 0)).image.replace(':', '_')}`);
    expect(cached.length).toBeGreaterThan(2);

    /** How many packages `go test` compiles at stage 2's base (`-x` prints each compiler command). */
    const compiles = async (sandbox: DockerContainer) => {
      const r = await sandbox.exec(
        `set -e\n${checkoutLines(second.baseSha).join('\n')}\ngo test -count=1 -x . 2>&1 | grep -c '/compile ' || true`,
        { timeoutSeconds: 300, maxOutputChars: 2_000, cwd: '/work' },
      );
      expect(r.exitCode).toBe(0);
      return Number(r.output.trim());
    };
    const env = await environments.forStage(chain, 1);
    const gold = await StageSandbox.open(deps, chain, 1, { role: { kind: 'gold' }, carryPatch: '' }, env);
    try {
      // Stage 2's base is stage 1's merge, which stage 1's gold runs compiled into the shared cache.
      expect(await compiles(gold.sandbox)).toBe(0);
    } finally {
      await gold.destroy();
    }
    // A sandbox without it (an agent's) has only the image's cache, built at the first commit.
    const plain = await DockerContainer.create(docker, {
      image: env.image,
      mirrorPath: repo.path,
      labels: { 'chainsmith.test': 'gocache' },
      memoryMb: 1024,
      pidsLimit: 256,
    });
    try {
      expect(await compiles(plain)).toBeGreaterThan(0);
    } finally {
      await plain.destroy();
    }
    expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  },
  600_000,
);
