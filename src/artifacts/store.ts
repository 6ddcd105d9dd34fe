import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { InputError } from '../errors';
import type { ArtifactRef } from '../schemas';

/**
 * Content-addressed blobs on disk plus a few named pointers (checkpoints). Workflow history carries
 * only the `sha256:` references, so transcripts and patches never count against history limits.
 * For several machines, point every worker at the same directory (a shared volume).
 */
export class ArtifactStore {
  constructor(readonly root: string) {}

  async put(data: string | Buffer): Promise<ArtifactRef> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const hex = createHash('sha256').update(bytes).digest('hex');
    await atomicWrite(this.blobPath(hex), bytes, true);
    return `sha256:${hex}`;
  }

  putJson(value: unknown): Promise<ArtifactRef> {
    return this.put(JSON.stringify(value));
  }

  async get(ref: ArtifactRef): Promise<Buffer> {
    const hex = parseRef(ref);
    try {
      return await readFile(this.blobPath(hex));
    } catch (cause) {
      throw new InputError(`artifact ${ref} is missing from ${this.root}`, { cause });
    }
  }

  async getText(ref: ArtifactRef): Promise<string> {
    return (await this.get(ref)).toString('utf8');
  }

  async getJson<T>(ref: ArtifactRef, schema: z.ZodType<T>): Promise<T> {
    const parsed = schema.safeParse(JSON.parse(await this.getText(ref)));
    if (!parsed.success) throw new InputError(`artifact ${ref} does not match its schema: ${parsed.error.message}`);
    return parsed.data;
  }

  /** Named, overwritable pointer to a blob (e.g. the latest checkpoint of a rollout). */
  async setPointer(name: string, ref: ArtifactRef): Promise<void> {
    await atomicWrite(this.pointerPath(name), Buffer.from(ref), false);
  }

  async getPointer(name: string): Promise<ArtifactRef | undefined> {
    try {
      return (await readFile(this.pointerPath(name), 'utf8')) as ArtifactRef;
    } catch {
      return undefined;
    }
  }

  private blobPath(hex: string): string {
    return join(this.root, 'sha256', hex.slice(0, 2), hex.slice(2));
  }

  private pointerPath(name: string): string {
    if (!/^[\w.\-/]+$/.test(name) || name.includes('..')) throw new InputError(`bad pointer name: ${name}`);
    return join(this.root, 'pointers', name);
  }
}

function parseRef(ref: string): string {
  const m = /^sha256:([0-9a-f]{64})$/.exec(ref);
  if (!m) throw new InputError(`not an artifact reference: ${ref}`);
  return m[1];
}

/** Write to a temp file then rename, so a crash never leaves a half-written blob or pointer. */
async function atomicWrite(path: string, bytes: Buffer, immutable: boolean): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, bytes, immutable ? { mode: 0o444 } : {});
  await rename(tmp, path);
}
