import { makeRunner } from '../../../../src/environments/languages/c/make';
import { useStageSandbox } from '../../../support/stage-sandbox';

/**
 * Test targets of a plain-make project, each failing: one whose failing program is the last command of
 * its recipe (everything ran), one whose failing program stops its recipe before a later one, one in a
 * sub-make that stops early, and one whose failing target is needed by a recipe that then never ran.
 */
const sandbox = useStageSandbox('c-make-rerun', {
  Makefile:
    'ran-all:\n\t@echo ran first\n\t@echo ran last; false\n' +
    'stops:\n\t@echo ran first; false\n\t@echo ran last\n' +
    'nested:\n\t$(MAKE) -C sub stops\n' +
    'needs: built\n\t@echo ran last\nbuilt:\n\t@echo ran first; false\n',
  'sub/Makefile': 'stops:\n\t@echo ran first; false\n\t@echo ran last\n',
});

const run = async (target: string) => {
  const command = `export CHAINSMITH_MAKE_TARGET=${target}\n${makeRunner.command(['README.md'])}`;
  const r = await sandbox().exec(command, { timeoutSeconds: 120, maxOutputChars: 100_000 });
  return { exitCode: r.exitCode, again: r.output.includes('(make -i)'), last: r.output.split('ran last').length - 1 };
};

test('make: a failed test target whose every command ran is not run again with make -i', async () => {
  expect(await run('ran-all')).toEqual({ exitCode: 2, again: false, last: 1 });
});

test('make: a failed test target that left a command unrun runs again with make -i', async () => {
  expect(await run('stops')).toEqual({ exitCode: 2, again: true, last: 1 });
  expect(await run('nested')).toEqual({ exitCode: 2, again: true, last: 1 });
  expect(await run('needs')).toEqual({ exitCode: 2, again: true, last: 1 });
});
