import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CLAMP = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;
const CHECK = (check: string) => `int clamp(int, int, int);\nint main(void) { return !(${check}); }\n`;

/**
 * An automake project at automake's default (gnu) strictness with none of the files it asks for
 * (NEWS, README, AUTHORS, ChangeLog), which the project's own bootstrap script would have touched:
 * autoreconf failed (`required file './NEWS' not found`) and no stage had an environment.
 */
test('autotools: a project at the gnu strictness without NEWS or AUTHORS is configured and tested', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-strictness-'));
  const makefileAm = (tests: string[]) =>
    `check_PROGRAMS = ${tests.map((t) => `test_${t}`).join(' ')}\nTESTS = $(check_PROGRAMS)\n` +
    tests.map((t) => `test_${t}_SOURCES = test_${t}.c clamp.c\n`).join('');
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'configure.ac': 'AC_INIT([clamp], [1.0])\nAM_INIT_AUTOMAKE\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n',
    'Makefile.am': makefileAm(['low']),
    'clamp.c': CLAMP('return x < lo ? lo : x;'),
    'test_low.c': CHECK('clamp(-5, 0, 10) == 0'),
  });
  const fix = {
    'Makefile.am': makefileAm(['low', 'high']),
    'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;'),
    'test_high.c': CHECK('clamp(50, 0, 10) == 10'),
  };
  const chain = repo.chain('gen/clamp-gnu-strictness', [await repo.pr(1, 'Clamp from above too', fix)]);
  const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['test_high'], passToPass: ['test_low'] });
});
