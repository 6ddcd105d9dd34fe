import Docker from 'dockerode';
import { baseImageTag, toolchainImageTag } from '../../src/environments/images';
import { Toolchains } from '../../src/environments/toolchains';
import { StageError } from '../../src/errors';

const docker = new Docker();

test('toolchain tags follow their recipe files; Python is the base image; a missing image that cannot be built here says how to get it', async () => {
  const toolchains = new Toolchains(docker, { baseImage: 'chainsmith-base:configured', dataDir: '/nonexistent' });
  expect(toolchains.image('python')).toBe('chainsmith-base:configured');
  expect(toolchainImageTag('python')).toBe(baseImageTag());
  expect(toolchainImageTag('c')).toMatch(/^chainsmith-toolchain:c-[0-9a-f]{12}$/);
  expect(toolchainImageTag('node')).not.toBe(toolchainImageTag('c'));

  // Without debootstrap on PATH (and, for other users, without root) the builder stops with the way out.
  const java = toolchainImageTag('java');
  const present = await docker.getImage(java).inspect().then(() => true, () => false);
  if (present) return console.warn(`${java} exists on this engine: the cannot-build message is not exercised`);
  const path = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    const attempt = toolchains.ensure('java');
    await expect(attempt).rejects.toThrow(StageError);
    await expect(attempt).rejects.toThrow(/the toolchain image chainsmith-toolchain:java-[0-9a-f]{12} is missing and cannot be built here: (debootstrap|building it).*scripts\/provision\.sh toolchains/);
  } finally {
    process.env.PATH = path;
  }
  await expect(toolchains.ensure('python')).rejects.toThrow(/the base image chainsmith-base:configured is missing: run scripts\/provision\.sh image/);
});
