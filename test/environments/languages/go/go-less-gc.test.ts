import Docker from 'dockerode';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutLines } from '../../../../src/container/checkout';
import { DockerContainer } from '../../../../src/container/docker-container';
import { goRunner } from '../../../../src/environments/languages/go/go-test';
import { ChainRepo } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

const code = (n: number) => `package gc\n\n// N is the package's number.\nconst N = ${n}\n`;
/** Fails where the test binary sees any of the variables, a memory limit other than Go's default (none), or fewer Ps than CPUs. */
const ENV_TEST = `package gc

import (
\t"math"
\t"os"
\t"runtime"
\t"runtime/debug"
\t"testing"
)

func TestOwnCollector(t *testing.T) {
\tif os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
\t\tt.Fatalf("GOGC=%q GOMEMLIMIT=%q", os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"))
\t}
\tif os.Getenv("GOMAXPROCS") != "" || runtime.GOMAXPROCS(0) != runtime.NumCPU() {
\t\tt.Fatalf("GOMAXPROCS=%q: %d Ps for %d CPUs", os.Getenv("GOMAXPROCS"), runtime.GOMAXPROCS(0), runtime.NumCPU())
\t}
}
`;
const N_TEST = 'package gc\n\nimport "testing"\n\nfunc TestN(t *testing.T) {\n\tif N != 2 {\n\t\tt.Fatal(N)\n\t}\n}\n';

/**
 * The go runner's command gives `go` (and the compiler and linker it starts) GOGC=400 under a soft
 * memory limit of a third of the sandbox's cap, and GOMAXPROCS at the sandbox's CPU quota (one CPU
 * here) where it sees more CPUs than that, and runs the test binary without any of them: the tests see
 * the collector and the Ps the project's own runs have, and a changed source is still compiled anew.
 */
testIf(missingTool('go'))(
  'go test runs its toolchain at GOGC=400 under a third of the memory cap and at the CPU quota, its test binaries with none of it',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-go-gc-'));
    const repo = await ChainRepo.create(join(dir, 'gc'), {
      'go.mod': 'module example.test/gc\n\ngo 1.19\n',
      'gc.go': code(1),
      'env_test.go': ENV_TEST,
    });
    const pr = await repo.pr(1, 'N is two', { 'gc.go': code(2), 'n_test.go': N_TEST });
    const env = await testEnvironments(docker).forStage(repo.chain('gen/go-gc', [pr]), 0);
    const sandbox = await DockerContainer.create(docker, {
      image: env.image,
      mirrorPath: repo.path,
      labels: { 'chainsmith.test': 'go-gc' },
      memoryMb: 900,
      pidsLimit: 256,
    });
    // The go command says what it was given (on stderr, which the runner's output ends with).
    const run = async (sha: string, files: string[]) => {
      const spy =
        'go() { echo "go sees GOGC=${GOGC-} GOMEMLIMIT=${GOMEMLIMIT-} GOMAXPROCS=${GOMAXPROCS-}" >&2; command go "$@"; }';
      const r = await sandbox.exec(
        `set -e\n${checkoutLines(sha).join('\n')}\ngit checkout -q ${pr.mergeSha} -- ${files.join(' ')}\nset +e\n${spy}\n${goRunner.command(files)}`,
        { timeoutSeconds: 600, maxOutputChars: 40_000, cwd: '/work' },
      );
      return { output: r.output, cases: goRunner.parse(r.output) };
    };
    try {
      const before = await run(pr.baseSha, ['n_test.go']);
      // The sandbox's quota is one CPU (the container's default); the engine's machine is this one.
      const procs = cpus().length > 1 ? '1' : '';
      expect(before.output).toContain(
        `go sees GOGC=400 GOMEMLIMIT=${Math.floor((900 * 1024 * 1024) / 3)} GOMAXPROCS=${procs}\n`,
      );
      expect(before.cases).toEqual(
        expect.arrayContaining([
          { id: 'example.test/gc/TestOwnCollector', outcome: 'passed' },
          { id: 'example.test/gc/TestN', outcome: 'failed' },
        ]),
      );
      // The merge changes gc.go: compiled anew, not taken from the cache the base's run filled.
      const after = await run(pr.mergeSha, ['n_test.go']);
      expect(after.cases).toEqual(
        expect.arrayContaining([
          { id: 'example.test/gc/TestOwnCollector', outcome: 'passed' },
          { id: 'example.test/gc/TestN', outcome: 'passed' },
        ]),
      );
    } finally {
      await sandbox.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  },
  600_000,
);
