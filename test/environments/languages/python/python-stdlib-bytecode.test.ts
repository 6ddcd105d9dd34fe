import Docker from 'dockerode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { baseImageTag } from '../../../../src/environments/images';
import { hostPythons } from '../../../../src/environments/languages/python/host-pythons';
import { Toolchains } from '../../../../src/environments/toolchains';
import { run } from '../../../../src/process/run';
import { missingPythons, testIf } from '../../../support/preconditions';

const docker = new Docker();

/** Runs `script` in a throwaway container of `image` (no network), as `user`; its output, both streams. */
async function inImage(image: string, user: string, script: string): Promise<{ code: number; output: string }> {
  const r = await run('docker', ['run', '--rm', '--network', 'none', '--user', user, image, 'bash', '-c', script]);
  return { code: r.exitCode ?? -1, output: `${r.stdout}${r.stderr}` };
}

// A host CPython's toolchain image keeps its standard library compiled (images/host-python/build.sh), so
// sandboxes, which write no bytecode, do not compile each standard module at every Python start.
testIf(missingPythons(['3.8']))(
  "a host Python's toolchain image reads its standard library from bytecode, and an edited module from its source",
  async () => {
    const python = (await hostPythons()).find((p) => p.version === '3.8')!;
    const toolchains = new Toolchains(docker, {
      baseImage: baseImageTag(),
      dataDir: process.env.CHAINSMITH_HOME ?? join(homedir(), '.chainsmith'),
    });
    const image = await toolchains.ensure({ image: 'python', prefix: python.prefix, version: '3.8' });
    const py = `PYTHONDONTWRITEBYTECODE=1 ${python.prefix}/bin/python3`;

    // -v names where each module's code comes from: the image's bytecode, not a compile of the source.
    const plain = await inImage(image, 'agent', `${py} -v -c 'import string, typing, argparse' 2>&1`);
    expect(plain.code).toBe(0);
    for (const mod of ['string', 'typing', 'argparse'])
      expect(plain.output).toContain(
        `# code object from '${python.prefix}/lib/python3.8/__pycache__/${mod}.cpython-38.pyc'`,
      );

    // The bytecode is checked against its source's hash: a module edited with the same size and
    // modification time (which a timestamp check would miss) is compiled from its new source.
    const edited = await inImage(
      image,
      'root',
      [
        `f=${python.prefix}/lib/python3.8/string.py`,
        'cp -p "$f" /tmp/orig',
        `sed -i "s/^ascii_lowercase = 'abcdefghijklmnopqrstuvwxyz'$/ascii_lowercase = 'abcdefghijklmnopqrstuvwxyZ'/" "$f"`,
        'cmp -s "$f" /tmp/orig && { echo unchanged; exit 1; }',
        'touch -r /tmp/orig "$f"',
        `[ "$(stat -c %s.%Y "$f")" = "$(stat -c %s.%Y /tmp/orig)" ] || { echo size or time moved; exit 1; }`,
        `${py} -v -c 'import string; print("lowercase:", string.ascii_lowercase)' 2>&1`,
      ].join('\n'),
    );
    expect(edited.code).toBe(0);
    expect(edited.output).toContain('lowercase: abcdefghijklmnopqrstuvwxyZ');
    expect(edited.output).toContain(`# code object from ${python.prefix}/lib/python3.8/string.py`);
    expect(edited.output).not.toContain(`__pycache__/string.cpython-38.pyc'`);
  },
  15 * 60_000,
);
