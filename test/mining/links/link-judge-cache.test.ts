// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VerdictCache } from '../../../src/mining/links/link-judge/verdict-cache';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-verdicts-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const entry = {
  from: 9,
  to: 4,
  verdict: { verdict: 'weak' as const, reason: 'A typo in the message #4 added.' },
  usage: { promptTokens: 900, completionTokens: 20 },
};

test('a verdict is read back under the same repository, model and prompt version only', async () => {
  await new VerdictCache(root, 'acme/widgets', 'org/model:v1', 'aaaa').put(entry);
  expect(await new VerdictCache(root, 'acme/widgets', 'org/model:v1', 'aaaa').get(9, 4)).toMatchObject({
    ...entry,
    repo: 'acme/widgets',
    model: 'org/model:v1',
  });
  expect(await new VerdictCache(root, 'acme/widgets', 'org/model:v1', 'aaaa').get(4, 9)).toBeUndefined();
  expect(await new VerdictCache(root, 'acme/widgets', 'org/model:v1', 'bbbb').get(9, 4)).toBeUndefined();
  expect(await new VerdictCache(root, 'acme/widgets', 'org/model:v2', 'aaaa').get(9, 4)).toBeUndefined();
  expect(await new VerdictCache(root, 'acme/gadgets', 'org/model:v1', 'aaaa').get(9, 4)).toBeUndefined();
  // Two model names with one folder name: the file says whose verdict it is.
  expect(await new VerdictCache(root, 'acme/widgets', 'org/model_v1', 'aaaa').get(9, 4)).toBeUndefined();
});

test('a damaged verdict file counts as missing', async () => {
  const cache = new VerdictCache(root, 'acme/damaged', 'm', 'cccc');
  await cache.put(entry);
  const folder = join(root, 'acme_damaged', 'm', 'cccc');
  expect(await readdir(folder)).toEqual(['9-4.json']);
  await writeFile(join(folder, '9-4.json'), '{"repo": "acme/damaged", "from": 9');
  expect(await cache.get(9, 4)).toBeUndefined();
});
