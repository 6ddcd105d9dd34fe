import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package root, found from this file whether it runs from src/ (ts-jest) or dist/src/. */
export function packageRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'images'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the chainsmith package root above ${__dirname}`);
    dir = up;
  }
  return dir;
}
