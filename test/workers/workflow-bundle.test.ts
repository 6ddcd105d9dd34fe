import { mkdtemp, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cachedWorkflowBundle } from '../../src/workers/workflow-bundle';

test('workflow code is bundled once per version: a restart reuses the bundle, a change to the code makes a new one', async () => {
  const code = await mkdtemp(join(tmpdir(), 'chainsmith-wf-'));
  // The bundler resolves the SDK from the workflow code's folder, as it does from src/workflows.
  await symlink(resolve(__dirname, '../../node_modules'), join(code, 'node_modules'));
  const cache = join(await mkdtemp(join(tmpdir(), 'chainsmith-bundles-')), 'workflow-bundles');
  const write = (answer: string) => writeFile(join(code, 'index.js'), `exports.hello = async function hello() { return '${answer}'; };\n`);

  await write('first');
  const first = await cachedWorkflowBundle(join(code, 'index.js'), cache);
  const built = (await stat(first.codePath)).mtimeMs;
  const again = await cachedWorkflowBundle(join(code, 'index.js'), cache);
  expect(again.codePath).toBe(first.codePath);
  expect((await stat(again.codePath)).mtimeMs).toBe(built);

  await write('second');
  const changed = await cachedWorkflowBundle(join(code, 'index.js'), cache);
  expect(changed.codePath).not.toBe(first.codePath);
  expect(await readdir(cache)).toEqual(expect.arrayContaining([first.codePath, changed.codePath].map((p) => p.slice(cache.length + 1))));
}, 60_000);
