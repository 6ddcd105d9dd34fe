// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../../src/workers/workflow-bundle';

/** The file a cached bundle is kept in (a bundle in memory has none). */
function pathOf(bundle: WorkflowBundleOption): string {
  if (!('codePath' in bundle)) throw new Error('the bundle was not kept in a file');
  return bundle.codePath;
}

test('workflow code is bundled once per version: a restart reuses the bundle, a change to the code makes a new one', async () => {
  const code = await mkdtemp(join(tmpdir(), 'chainsmith-wf-'));
  // The bundler resolves the SDK from the workflow code's folder, as it does from src/workflows.
  await symlink(resolve(__dirname, '../../node_modules'), join(code, 'node_modules'));
  const cache = join(await mkdtemp(join(tmpdir(), 'chainsmith-bundles-')), 'workflow-bundles');
  const write = (answer: string) =>
    writeFile(join(code, 'index.js'), `exports.hello = async function hello() { return '${answer}'; };\n`);

  await write('first');
  const first = pathOf(await cachedWorkflowBundle(join(code, 'index.js'), cache));
  const built = (await stat(first)).mtimeMs;
  const again = pathOf(await cachedWorkflowBundle(join(code, 'index.js'), cache));
  expect(again).toBe(first);
  expect((await stat(again)).mtimeMs).toBe(built);

  await write('second');
  const changed = pathOf(await cachedWorkflowBundle(join(code, 'index.js'), cache));
  expect(changed).not.toBe(first);
  expect(await readdir(cache)).toEqual(expect.arrayContaining([first, changed].map((p) => p.slice(cache.length + 1))));

  // A cache folder that cannot be made (its parent is a file): the bundle is used from memory.
  const blocked = join(code, 'index.js', 'workflow-bundles');
  const inMemory = await cachedWorkflowBundle(join(code, 'index.js'), blocked);
  expect('code' in inMemory && inMemory.code).toContain('second');
}, 60_000);
