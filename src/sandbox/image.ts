import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths';

/** The base image tag: the same hash of images/base/* that scripts/provision.sh builds under. */
export function baseImageTag(): string {
  const dir = join(packageRoot(), 'images', 'base');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) hash.update(readFileSync(join(dir, file)));
  return `chainsmith-base:${hash.digest('hex').slice(0, 12)}`;
}
