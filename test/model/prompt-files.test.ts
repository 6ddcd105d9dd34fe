// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fillTemplate, promptTemplate } from '../../src/model/prompt-files';

const root = resolve(__dirname, '../..');

test('templates are read without their leading comment; placeholders are filled once', () => {
  const template = promptTemplate('queries', 'query');
  expect(template.startsWith('{{directive}}')).toBe(true);
  expect(fillTemplate('a {{x}} b', { x: '{{x}}' })).toBe('a {{x}} b');
  expect(() => fillTemplate('{{missing}}', {})).toThrow('prompt template needs a value for {{missing}}');
});

test('the compiled CLI (dist/) reads the same prompt files as the sources', () => {
  const names = readdirSync(join(root, 'src/model/prompts/queries')).map((f) => f.replace(/\.md$/, ''));
  const script = `const p = require(${JSON.stringify(join(root, 'dist/src/model/prompt-files.js'))});
    console.log(JSON.stringify(${JSON.stringify(names)}.map((n) => p.promptTemplate('queries', n))));`;
  const fromDist = JSON.parse(execFileSync('node', ['-e', script], { cwd: '/' }).toString());
  expect(fromDist).toEqual(names.map((n) => promptTemplate('queries', n)));
  expect(names).toEqual(expect.arrayContaining(['system', 'stage', 'overview', 'leak-feedback', 'malformed', 'query']));
});
