import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CODE_TEST, goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CLAMP = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;
/** A test program that reports by its exit code alone, as most small C projects' do. */
const CHECK = (check: string) => `int clamp(int, int, int);\nint main(void) { return !(${check}); }\n`;

/**
 * A project whose test target runs every program it has, each under its own `test-NAME` target, one
 * of them a fuzzer that does not pass here (it would run past any limit, or needs what the sandbox
 * lacks): the whole suite failed before and after the change, and the PR's own test, a program of
 * its own target, verified nothing. The PR's test files name their targets; those run alone.
 */
test("make: the PR's test programs run by their own test-NAME targets, not the whole suite", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-make-targets-'));
  const tests =
    'test: test-clamping test-fuzzer\n' +
    'test-clamping: clamping\n\t./clamping\nclamping: ../clamp.c clamping.c\n\t$(CC) -o $@ $^\n' +
    'test-fuzzer: fuzzer\n\t./fuzzer\nfuzzer: ../clamp.c fuzzer.c\n\t$(CC) -o $@ $^\n';
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    Makefile: 'test:\n\t$(MAKE) -C tests test\n',
    'clamp.c': CLAMP('return x < lo ? lo : x;'),
    'tests/Makefile': tests,
    'tests/clamping.c': CHECK('clamp(-5, 0, 10) == 0'),
    'tests/fuzzer.c': CHECK('0'),
  });
  const fix = {
    'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;'),
    'tests/clamping.c': CHECK('clamp(-5, 0, 10) == 0 && clamp(50, 0, 10) == 10'),
  };
  const chain = repo.chain('gen/clamp-make-targets', [await repo.pr(1, 'Clamp from above too', fix)]);
  const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
  expect(gold).toMatchObject({ status: 'verified', signal: 'exit-code', failToPass: [EXIT_CODE_TEST] });
});

/** A test program printing TAP, one line a case. */
const TAP = (cases: string[]) =>
  `#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n  int n = 0, bad = 0;\n${cases.map((c) => `  { int ok = ${c.split('|')[1]}; printf("%sok %d - ${c.split('|')[0]}\\n", ok ? "" : "not ", ++n); bad += !ok; }\n`).join('')}  return bad != 0;\n}\n`;

/**
 * One recipe that builds and runs each test program in turn, as Unity's own test target does: make
 * stops it at the first program that fails (here one broken before and after the change), and the
 * PR's new case in a later program never ran, before or after. Every command runs once more.
 */
test('make: a test recipe stopped by a failing program runs its later programs too', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-make-recipe-'));
  const makefile = 'test:\n\t$(CC) -o t1 clamp.c tests/first.c\n\t./t1\n\t$(CC) -o t2 clamp.c tests/second.c\n\t./t2\n';
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    Makefile: makefile,
    'clamp.c': CLAMP('return x < lo ? lo : x;'),
    'tests/first.c': TAP(['clamps the middle|clamp(5, 0, 10) == 6']),
    'tests/second.c': TAP(['clamps below|clamp(-5, 0, 10) == 0']),
  });
  const fix = {
    'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;'),
    'tests/second.c': TAP(['clamps below|clamp(-5, 0, 10) == 0', 'clamps above|clamp(50, 0, 10) == 10']),
  };
  const chain = repo.chain('gen/clamp-make-recipe', [await repo.pr(1, 'Clamp from above too', fix)]);
  const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test', failToPass: ['clamps above'] });
  expect(gold.passToPass).toEqual(['clamps below']);
});
