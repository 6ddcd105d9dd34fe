// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { blankNoise } from '../../../src/mining/links/text-noise';

const kept = (text: string) =>
  blankNoise(text)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

test('HTML comments, fenced blocks and quoted lines are blanked in place; the rest keeps its offsets', () => {
  const text =
    'Fix #1.\n<!-- template: Fixes #<n> -->\n```js\nsee #2\n```js\nstill code #3\n```\nAfter #4.\n> quoted #5\n~~~\n#6\n~~~~\nLast #7';
  const blanked = blankNoise(text);
  expect(blanked).toHaveLength(text.length);
  expect(blanked.indexOf('After #4.')).toBe(text.indexOf('After #4.'));
  // "```js" inside a block does not close it: only a fence alone does.
  expect(kept(text)).toEqual(['Fix #1.', 'After #4.', 'Last #7']);
});

test('a line with inline code in triple backticks is no fence, and a fence never closed blanks to the end', () => {
  expect(kept('```fix #12``` is the call\nThen #13')).toEqual(['```fix #12``` is the call', 'Then #13']);
  expect(kept('Before #1\n```\nlog #2\nno close #3')).toEqual(['Before #1']);
  expect(blankNoise('Nothing to blank in #1')).toBe('Nothing to blank in #1');
});
