import Docker from 'dockerode';
import { baseImageTag, toolchainImageTag } from '../../src/environments/images';
import { Toolchains } from '../../src/environments/toolchains';
import { StageError } from '../../src/errors';
import { PrivateDockerd } from '../support/private-dockerd';

test('toolchain tags follow their recipe files; Python has its own image, with a compiler; a missing image that cannot be built here says how to get it', async () => {
  const toolchains = new Toolchains(new Docker(), { baseImage: 'chainsmith-base:configured', dataDir: '/nonexistent' });
  expect(toolchains.image('python')).toMatch(/^chainsmith-toolchain:python-[0-9a-f]{12}$/);
  expect(toolchainImageTag('python')).not.toBe(baseImageTag());
  expect(toolchainImageTag('c')).toMatch(/^chainsmith-toolchain:c-[0-9a-f]{12}$/);
  expect(toolchainImageTag('node')).not.toBe(toolchainImageTag('c'));

  // An engine that has no toolchain image (a dockerd of the test's own, empty), and without debootstrap
  // on PATH (and, for other users, without root): the builder stops with the way out.
  const dockerd = new PrivateDockerd();
  try {
    await dockerd.start();
    const empty = new Toolchains(new Docker({ socketPath: dockerd.host.replace(/^unix:\/\//, '') }), {
      baseImage: baseImageTag(),
      dataDir: '/nonexistent',
    });
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const attempt = empty.ensure('java');
      await expect(attempt).rejects.toThrow(StageError);
      await expect(attempt).rejects.toThrow(
        /the toolchain image chainsmith-toolchain:java-[0-9a-f]{12} is missing and cannot be built here: (debootstrap|building it).*scripts\/provision\.sh toolchains/,
      );
    } finally {
      process.env.PATH = path;
    }
  } finally {
    await dockerd.remove();
  }
});
