import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../../src/artifacts/store';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo, type Files } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CLAMP = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;
const BUGGY = CLAMP('return x < lo ? lo : x;');
const FIXED = CLAMP('return x < lo ? lo : x > hi ? hi : x;');
/** A test program printing TAP, the way small C projects' `make check` does. */
const TESTS = (cases: string[]) =>
  `#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n  int n = 0, bad = 0;\n${cases.map((c) => `  { int ok = ${c.split('|')[1]}; printf("%sok %d - ${c.split('|')[0]}\\n", ok ? "" : "not ", ++n); bad += !ok; }\n`).join('')}  return bad != 0;\n}\n`;
const LOW = 'clamps below|clamp(-5, 0, 10) == 0';
const HIGH = 'clamps above|clamp(50, 0, 10) == 10';

async function validate(name: string, files: Files, fix: Files) {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), files);
  const chain = repo.chain(name, [await repo.pr(1, 'Clamp from above too', fix)]);
  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  const gold = await goldTestsFor({ docker, store: new ArtifactStore(join(dir, 'artifacts')), sandbox: { memoryMb: 512, pidsLimit: 256 }, environments }, chain, 0);
  return { env, gold };
}

test('plain make: `make check` builds and runs the tests; their TAP lines give FAIL_TO_PASS', async () => {
  const makefile = 'CFLAGS ?= -O0 -g\ncheck: test_clamp\n\t./test_clamp\ntest_clamp: clamp.c tests/test_clamp.c\n\t$(CC) $(CFLAGS) -o $@ $^\n';
  const { env, gold } = await validate('gen/clamp-make', { Makefile: makefile, 'clamp.c': BUGGY, 'tests/test_clamp.c': TESTS([LOW]) }, { 'clamp.c': FIXED, 'tests/test_clamp.c': TESTS([LOW, HIGH]) });
  expect(env).toMatchObject({ language: 'c', runner: 'make', test: 'make -k check', recipe: { origin: 'c-make' } });
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test', failToPass: ['clamps above'], passToPass: ['clamps below'] });
});

test('meson: configured and built in the image; `meson test` result lines give FAIL_TO_PASS per test', async () => {
  const meson = (tests: string[]) =>
    `project('clamp', 'c')\nlib = static_library('clamp', 'clamp.c')\n` +
    tests.map((t) => `test('${t}', executable('${t}', 'tests/${t}.c', link_with: lib))\n`).join('');
  const single = (c: string) => TESTS([c]);
  const { env, gold } = await validate(
    'gen/clamp-meson',
    { 'meson.build': meson(['below']), 'clamp.c': BUGGY, 'tests/below.c': single(LOW) },
    { 'meson.build': meson(['below', 'above']), 'clamp.c': FIXED, 'tests/above.c': single(HIGH) },
  );
  expect(env).toMatchObject({ language: 'c', runner: 'make', recipe: { origin: 'c-meson' } });
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass).toEqual(['above']);
  expect(gold.passToPass).toEqual(['below']);
});
