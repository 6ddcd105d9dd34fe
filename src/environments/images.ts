import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths';
import type { ToolchainName } from './languages';

/**
 * Sandbox images are built from recipes under images/: the base (images/base) and one toolchain image
 * per language (images/toolchains/NAME/packages, Debian packages added to the base's). Tags hash the
 * recipe files, computed the same way by scripts/provision.sh, so a recipe edit builds a new image.
 */
const hashFiles = (hash: ReturnType<typeof createHash>, dir: string) => {
  for (const file of readdirSync(dir).sort()) hash.update(readFileSync(join(dir, file)));
  return hash;
};

export function imagesDir(): string {
  return join(packageRoot(), 'images');
}

/** The base image tag: a hash of images/base/*. */
export function baseImageTag(): string {
  return `chainsmith-base:${hashFiles(createHash('sha256'), join(imagesDir(), 'base')).digest('hex').slice(0, 12)}`;
}

/** The toolchain recipe's package list; undefined where a toolchain has none (its image is the base image). */
export function toolchainPackages(name: ToolchainName): string | undefined {
  const file = join(imagesDir(), 'toolchains', name, 'packages');
  return existsSync(file) ? file : undefined;
}

/** The toolchain image tag: a hash of images/base/* then images/toolchains/NAME/*. */
export function toolchainImageTag(name: ToolchainName): string {
  const dir = join(imagesDir(), 'toolchains', name);
  if (!existsSync(dir)) return baseImageTag();
  const hash = hashFiles(hashFiles(createHash('sha256'), join(imagesDir(), 'base')), dir);
  return `chainsmith-toolchain:${name}-${hash.digest('hex').slice(0, 12)}`;
}
