// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { lateReleases } from '../../../../src/environments/languages/python/date-pinned';
import { fetchAcme, fetchInputs } from '../../../support/python-project';

test("uv's hint of a package the date leaves no release of is read, wrapped or coloured; a floor raised past the date is not", () => {
  const stderr = [
    '  × No solution found when resolving dependencies:',
    '  ╰─▶ Because there are no versions of atomicwrites and pytest>=3.9.1 depends on atomicwrites>=1.0, ...',
    '',
    'hint: `atomicwrites` was filtered by `exclude-newer` to only include packages uploaded before',
    '2019-01-01T06:39:54Z. The latest version satisfying the requirement is v1.4.1, published at 2022-07-08T18:31:40.459Z. Consider',
    'using `exclude-newer-package` to override the cutoff for this package.',
    'hint: `pluggy` (v0.6.0) was included because `pytest` (v3.4.2) depends on `pluggy>=0.5, <0.7`',
  ].join('\n');
  expect(lateReleases(stderr)).toEqual([
    { name: 'atomicwrites', version: '1.4.1', publishedAt: '2022-07-08T18:31:40.459Z' },
  ]);
  expect(lateReleases('error: No solution found')).toEqual([]);
  // In colour (uv under FORCE_COLOR), the same.
  const coloured = stderr
    .replace(/`atomicwrites`/, '`\x1b[36matomicwrites\x1b[39m`')
    .replace(/ of atomicwrites /, ' of \x1b[36matomicwrites\x1b[39m ');
  expect(lateReleases(coloured).map((p) => p.name)).toEqual(['atomicwrites']);
  // A floor raised past the date leaves older releases: not lifted (the resolution as of a later date is the caller's).
  const raised = [
    '  ╰─▶ Because only pytest<=7.1.3 is available and acme depends on pytest>=7.2, we can conclude that your requirements are unsatisfiable.',
    'hint: `pytest` was filtered by `exclude-newer` to only include packages uploaded before 2022-10-01T00:00:00Z. The latest version satisfying the requirement is v9.2.0, published at 2026-10-27T00:00:00Z.',
  ].join('\n');
  expect(lateReleases(raised)).toEqual([]);
});

/**
 * A project of early 2019 that requires atomicwrites, whose every release before 1.4.1 (2022) was
 * deleted from the index: the resolution as of its date has nothing to take, so atomicwrites alone is
 * taken as of its first release that is still served, and the stage's other packages stay of its date.
 */
test('a requirement whose releases of the era are gone from the index resolves to the release that replaced them, the rest as of the date', async () => {
  const { resolution, requirements } = await fetchAcme(
    fetchInputs({ python: '3.6' }),
    ['atomicwrites>=1.0', 'six'],
    new Date('2019-01-01T06:39:54Z'),
  );
  expect(requirements).toMatch(/^atomicwrites==1\.4\.1$/m);
  // six as of the date (1.12.0 came on 2018-12-10; 1.13.0 in 2019-11).
  expect(requirements).toMatch(/^six==1\.12\.0$/m);
  expect(resolution.notes).toContain(
    'atomicwrites has no release as of 2019-01-01 that the requirements allow and the index serves (gone from it, or published later): resolved as of the day after atomicwrites 1.4.1 was published (2022-07-08), alone',
  );
}, 600_000);
