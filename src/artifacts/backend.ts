import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomic } from '../atomic-file';

/** Where the artifact store keeps its bytes: a directory, or a bucket shared by several hosts. */
export interface BlobBackend {
  /** Undefined when the key does not exist. */
  read(key: string): Promise<Buffer | undefined>;
  write(key: string, bytes: Buffer): Promise<void>;
  /** Removes the key; one that does not exist is no error. */
  remove(key: string): Promise<void>;
  describe(): string;
}

export class DirectoryBackend implements BlobBackend {
  constructor(readonly root: string) {}

  async read(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(join(this.root, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Temp file then rename, so a crash never leaves a half-written blob or pointer. */
  async write(key: string, bytes: Buffer): Promise<void> {
    await writeAtomic(join(this.root, key), bytes);
  }

  async remove(key: string): Promise<void> {
    await rm(join(this.root, key), { force: true });
  }

  describe(): string {
    return this.root;
  }
}
