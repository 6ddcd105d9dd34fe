// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crateDate } from '../../bench/heldout/crates';
import { must } from '../../bench/heldout/release';

/** A `.crate` (a gzipped tar of `name-version/`) whose files carry the given modification times. */
async function crate(dir: string, times: Record<string, string>): Promise<string> {
  const top = join(dir, 'demo-1.0.0');
  await mkdir(join(top, 'src'), { recursive: true });
  for (const [path, time] of Object.entries(times)) {
    await writeFile(join(top, path), `${path}\n`);
    await utimes(join(top, path), new Date(time), new Date(time));
  }
  const file = join(dir, 'demo-1.0.0.crate');
  await must('tar', ['-czf', file, '-C', dir, 'demo-1.0.0']);
  return file;
}

test("a .crate packaged with its files' own times is dated by the newest of them", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-crate-date-'));
  const file = await crate(dir, {
    'Cargo.toml': '2020-02-18T16:41:35Z',
    'src/lib.rs': '2019-07-13T12:03:41Z',
    '.cargo_vcs_info.json': '1970-01-01T00:00:00Z',
  });
  expect(await crateDate(file)).toBe('2020-02-18T16:41:35Z');
});

test("a .crate whose entries carry cargo's fixed time or the epoch is undated", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-crate-date-'));
  const file = await crate(dir, {
    'Cargo.toml': '1970-01-01T00:00:01Z',
    'src/lib.rs': '2006-07-24T01:21:28Z',
  });
  expect(await crateDate(file)).toBeUndefined();
});
