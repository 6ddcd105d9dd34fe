import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exportDataset } from '../../src/dataset/write-dataset';
import { cli } from '../support/cli';
import { acceptedRun } from '../dataset/runs';

test('`chainsmith report` writes the page of an export and says where; without an export it says what to run', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-report-cli-'));
  const missing = await cli(['report', '--export', dir], { CHAINSMITH_HOME: dir });
  expect(missing.code).toBe(2);
  expect(missing.stderr.trim()).toBe(
    `error: no export in ${dir} (manifest.json is missing): run \`chainsmith export\` first`,
  );

  await exportDataset([acceptedRun()], join(dir, 'datasets', 'export'));
  const r = await cli(['report', '--price-input', '2.5', '--price-output', '10'], { CHAINSMITH_HOME: dir });
  const page = join(dir, 'datasets', 'export', 'report.html');
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(`report: ${page}\nopen it in a browser: ${pathToFileURL(page).href}\n`);
  expect(existsSync(page)).toBe(true);

  const halfPriced = await cli(['report', '--price-input', '2.5'], { CHAINSMITH_HOME: dir });
  expect(halfPriced.code).toBe(2);
  expect(halfPriced.stderr.trim()).toBe('error: give both --price-input and --price-output, or neither');
});
