// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { describePr, TRIM, trimmedDiff } from '../../../src/mining/links/link-judge/pr-text';
import type { PullRequest } from '../../../src/schemas';

const section = (path: string, lines: number) =>
  `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n@@ -1,${lines} +1,${lines} @@\n${Array.from({ length: lines }, (_, i) => `+line ${i} of ${path}`).join('\n')}\n`;

test('a large diff is cut per file and in all, and names the files it leaves out', () => {
  const patch =
    section('src/huge.py', 400) +
    section('src/small.py', 3) +
    Array.from({ length: 8 }, (_, i) => section(`src/more_${i}.py`, 60)).join('');
  const shown = trimmedDiff(patch);
  expect(shown.length).toBeLessThan(TRIM.patchChars + 400);
  // The huge file does not hide the small one after it.
  expect(shown).toContain('+line 2 of src/small.py');
  expect(shown).toMatch(/\[\.\.\. \d+ more characters not shown \.\.\.\]/);
  expect(shown).toMatch(/\[\.\.\. \d+ more file\(s\) not shown: (src\/more_\d\.py(, )?)+ \.\.\.\]\n$/);
  expect(trimmedDiff(section('a.py', 2))).toBe(section('a.py', 2));
});

test('a squash message that repeats the title and description is not shown twice; other commit messages are', () => {
  const pr = {
    number: 7,
    title: 'Fix the parser',
    body: 'It crashed on empty input.',
    messages: ['Fix the parser (#7)\n\nIt crashed on empty input.', 'Guard the empty case first'],
    mergedAt: '2024-03-01T10:00:00Z',
    patch: section('src/parser.py', 2),
  } as PullRequest;
  const text = describePr(pr);
  expect(text.match(/It crashed on empty input\./g)).toHaveLength(1);
  expect(text).toContain('Commit messages:\nGuard the empty case first');
  expect(text).toContain('+line 1 of src/parser.py');
});
