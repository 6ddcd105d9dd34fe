// no-docker: digests files in a temporary directory (jest.config.js)
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeVersion, treeDigest } from '../src/code-version';

describe('treeDigest', () => {
  test('changes with a module’s bytes or name, not with declarations or source maps', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-code-version-'));
    await mkdir(join(dir, 'judge'));
    await writeFile(join(dir, 'judge', 'parse.js'), 'exports.parse = (s) => s.split("\\n");\n');
    await writeFile(join(dir, 'cli.js'), 'require("./judge/parse");\n');
    const before = treeDigest(dir);
    await writeFile(join(dir, 'judge', 'parse.d.ts'), 'export declare function parse(s: string): string[];\n');
    await writeFile(join(dir, 'judge', 'parse.js.map'), '{}\n');
    expect(treeDigest(dir)).toBe(before);
    await writeFile(join(dir, 'judge', 'parse.js'), 'exports.parse = (s) => s.split("\\r\\n");\n');
    const changed = treeDigest(dir);
    expect(changed).not.toBe(before);
    await writeFile(join(dir, 'judge', 'parse.js'), 'exports.parse = (s) => s.split("\\n");\n');
    expect(treeDigest(dir)).toBe(before);
    await writeFile(join(dir, 'judge', 'extra.ts'), 'export {};\n');
    expect(treeDigest(dir)).not.toBe(before);
  });

  test('codeVersion is the digest of the tree chainsmith runs from', () => {
    expect(codeVersion()).toBe(treeDigest(join(__dirname, '..', 'src')));
  });
});
