import { toolingBelowFloor } from '../../../../src/environments/languages/python/fetch';
import { compareVersions } from '../../../../src/environments/languages/host-command';

test('versions compare numerically, a pre-release as its release', () => {
  expect(compareVersions('6.2.5', '7.0.1')).toBeLessThan(0);
  expect(compareVersions('7.0.1', '7.0.1')).toBe(0);
  expect(compareVersions('10.0', '9.9.9')).toBeGreaterThan(0);
  expect(compareVersions('7.0.0rc1', '7.0.0')).toBe(0);
});

test('test tooling older than what runs on Python 3.11 is found in pinned lines; the project’s own dependencies are not', () => {
  // Jinja as of June 2020: pytest 5 and py 1.8 (its apipkg fails on 3.11 at import).
  const pinned = [
    'attrs==19.3.0',
    'markupsafe==1.1.1',
    'py==1.8.1',
    'pytest==5.4.3',
    "colorama==0.4.3 ; sys_platform == 'win32'",
  ];
  expect(toolingBelowFloor(pinned, '3.11')).toEqual([
    ['py', '1.8.1'],
    ['pytest', '5.4.3'],
  ]);
  // As of 2022 (pytest 7.0.1, py 1.11): nothing to lift.
  expect(toolingBelowFloor(['py==1.11.0', 'pytest==7.0.1', 'markupsafe==2.0.1'], '3.11')).toEqual([]);
  expect(toolingBelowFloor(['PyTest==6.2.5'], '3.11')).toEqual([['pytest', '6.2.5']]);
});

test('each Python has its own tooling floor: pytest 2.7.3 and its py 1.4.29 from 3.5 (ast.Call), py 1.11 from 3.11, pytest 7.4.3 from 3.12 (ast.Str warnings before it)', () => {
  // A stage of 2013 on the oldest Python here: pytest 2.3's assertion rewriting fails on 3.5 and later.
  // With the py it needs (2.7.3 requires py 1.4.29), which an old tox's pins may hold below it.
  expect(toolingBelowFloor(['pytest==2.3.5', 'py==1.4.15'], '3.6')).toEqual([
    ['pytest', '2.3.5'],
    ['py', '1.4.15'],
  ]);
  expect(toolingBelowFloor(['pytest==2.3.5', 'py==1.4.30'], '3.6')).toEqual([['pytest', '2.3.5']]);
  expect(toolingBelowFloor(['pytest==2.7.3'], '3.6')).toEqual([]);
  const pinned = ['pytest==7.2.0', 'py==1.8.1', 'markupsafe==2.1.2'];
  expect(toolingBelowFloor(pinned, '3.9')).toEqual([]);
  expect(toolingBelowFloor(pinned, '3.11')).toEqual([['py', '1.8.1']]);
  expect(toolingBelowFloor(pinned, '3.12')).toEqual([
    ['pytest', '7.2.0'],
    ['py', '1.8.1'],
  ]);
  expect(toolingBelowFloor(['pytest==7.4.3'], '3.13')).toEqual([]);
});
