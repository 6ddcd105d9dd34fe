import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { BlobBackend } from './backend';

export interface S3Settings {
  bucket: string;
  prefix: string;
  /** For S3-compatible stores (MinIO, Ceph, R2); credentials come from the usual AWS_* variables. */
  endpoint?: string;
  region: string;
}

/** An S3-compatible bucket, for workers on several machines. Single PUTs are atomic, as the store needs. */
export class S3Backend implements BlobBackend {
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: Boolean(settings.endpoint),
    });
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }

  async write(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key), Body: bytes }));
  }

  /** S3 answers a delete of a missing key with success too. */
  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(key) }));
  }

  describe(): string {
    return `s3://${this.settings.bucket}/${this.settings.prefix}`;
  }

  private key(key: string): string {
    return this.settings.prefix ? `${this.settings.prefix.replace(/\/$/, '')}/${key}` : key;
  }
}
