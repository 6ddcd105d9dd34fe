import { link, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unionDirectory, unionVendor } from '../../src/environments/merge-deps';

async function files(root: string, tree: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

test("a module cache or local repository gets what the merge fetched, the base's files kept", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-union-'));
  await files(join(dir, 'base'), {
    'm2/junit/junit/4.12/junit-4.12.jar': 'base',
    'm2/junit/junit/maven-metadata.xml': 'base',
  });
  await files(join(dir, 'merged'), {
    'm2/junit/junit/4.13/junit-4.13.jar': 'merge',
    'm2/junit/junit/maven-metadata.xml': 'merge',
  });
  // Both fetches took hamcrest from the store (seed-repo.ts): one file, hard-linked on both sides.
  await files(join(dir, 'store'), { 'hamcrest-core-1.3.jar': 'store' });
  for (const side of ['base', 'merged']) {
    await mkdir(join(dir, side, 'm2/org/hamcrest/hamcrest-core/1.3'), { recursive: true });
    await link(
      join(dir, 'store/hamcrest-core-1.3.jar'),
      join(dir, side, 'm2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar'),
    );
  }
  await unionDirectory('m2')(join(dir, 'base'), join(dir, 'merged'));
  expect((await readdir(join(dir, 'base', 'm2', 'junit', 'junit'))).sort()).toEqual([
    '4.12',
    '4.13',
    'maven-metadata.xml',
  ]);
  const hamcrest = join(dir, 'base', 'm2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar');
  expect((await stat(hamcrest)).ino).toBe((await stat(join(dir, 'store/hamcrest-core-1.3.jar'))).ino);
  expect(await readFile(join(dir, 'base', 'm2', 'junit', 'junit', 'maven-metadata.xml'), 'utf8')).toBe('base');
  // Nothing fetched at the merge under that name: nothing to add.
  await expect(unionDirectory('mod')(join(dir, 'base'), join(dir, 'merged'))).resolves.toBeUndefined();
});

test('vendored crates: a version the base lacks is added beside it, one it has is not copied again', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-union-'));
  const crate = (name: string, version: string) => `[package]\nname = "${name}"\nversion = "${version}"\n`;
  await files(join(dir, 'base'), {
    'vendor/serde/Cargo.toml': crate('serde', '1.0.100'),
    'vendor/itoa/Cargo.toml': crate('itoa', '1.0.1'),
  });
  await files(join(dir, 'merged'), {
    'vendor/serde/Cargo.toml': crate('serde', '1.0.101'),
    'vendor/itoa/Cargo.toml': crate('itoa', '1.0.1'),
  });
  await unionVendor(join(dir, 'base'), join(dir, 'merged'));
  expect((await readdir(join(dir, 'base', 'vendor'))).sort()).toEqual(['itoa', 'serde', 'serde-1.0.101']);
  expect(await readFile(join(dir, 'base', 'vendor', 'serde', 'Cargo.toml'), 'utf8')).toContain('1.0.100');
});
