import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Config } from '../config';
import { InputError } from '../errors';
import type { ArtifactRef } from '../schemas';
import { DirectoryBackend, type BlobBackend } from './backend';
import { S3Backend } from './s3-backend';

/**
 * Content-addressed blobs plus a few named pointers (checkpoints). Workflow history carries only the
 * `sha256:` references, so transcripts and patches never count against history limits. A directory
 * by default; an S3-compatible bucket when several machines run workers.
 */
export class ArtifactStore {
  private readonly backend: BlobBackend;

  constructor(backend: BlobBackend | string) {
    this.backend = typeof backend === 'string' ? new DirectoryBackend(backend) : backend;
  }

  static fromConfig(config: Config): ArtifactStore {
    const s3 = config.artifacts.s3;
    return new ArtifactStore(s3 ? new S3Backend(s3) : new DirectoryBackend(join(config.dataDir, 'artifacts')));
  }

  async put(data: string | Buffer): Promise<ArtifactRef> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const hex = createHash('sha256').update(bytes).digest('hex');
    await this.backend.write(blobKey(hex), bytes);
    return `sha256:${hex}`;
  }

  putJson(value: unknown): Promise<ArtifactRef> {
    return this.put(JSON.stringify(value));
  }

  async get(ref: ArtifactRef): Promise<Buffer> {
    const bytes = await this.backend.read(blobKey(parseRef(ref)));
    if (!bytes) throw new InputError(`artifact ${ref} is missing from ${this.backend.describe()}`);
    return bytes;
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
    await this.backend.write(pointerKey(name), Buffer.from(ref));
  }

  async getPointer(name: string): Promise<ArtifactRef | undefined> {
    return (await this.backend.read(pointerKey(name)))?.toString('utf8') as ArtifactRef | undefined;
  }

  /** Removes a pointer (its blob stays: another pointer may share it); a missing one is no error. */
  async removePointer(name: string): Promise<void> {
    await this.backend.remove(pointerKey(name));
  }
}

function blobKey(hex: string): string {
  return `sha256/${hex.slice(0, 2)}/${hex.slice(2)}`;
}

function pointerKey(name: string): string {
  if (!/^[\w.\-/]+$/.test(name) || name.includes('..')) throw new InputError(`bad pointer name: ${name}`);
  return `pointers/${name}`;
}

function parseRef(ref: string): string {
  const m = /^sha256:([0-9a-f]{64})$/.exec(ref);
  if (!m) throw new InputError(`not an artifact reference: ${ref}`);
  return m[1];
}
