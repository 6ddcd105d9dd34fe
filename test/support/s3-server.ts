import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

/** Credentials of the throwaway server; clients read them from the usual AWS_* variables. */
export const S3_TEST_ENV = {
  AWS_ACCESS_KEY_ID: 'chainsmith-test',
  AWS_SECRET_ACCESS_KEY: 'chainsmith-test-secret',
  AWS_REGION: 'us-east-1',
};

/**
 * versitygw, a real S3 server (Versity's gateway in front of a POSIX directory), installed by
 * scripts/provision.sh with `go install` into the Go bin directory.
 */
export function versitygwPath(): string {
  const gopath = process.env.GOPATH ?? join(homedir(), 'go');
  return join(process.env.GOBIN ?? join(gopath, 'bin'), 'versitygw');
}

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** What every process of the test needs to reach the bucket (store settings and credentials). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts versitygw on 127.0.0.1 over a fresh directory, with one bucket, and waits until it answers. */
export async function startVersitygw(bucket = 'chainsmith-artifacts'): Promise<S3Server> {
  const binary = versitygwPath();
  if (!existsSync(binary)) throw new Error(`versitygw is not installed at ${binary}: run scripts/provision.sh s3`);
  const root = mkdtempSync(join(tmpdir(), 'chainsmith-s3-'));
  // Object metadata in a sidecar directory: the gateway's default, extended attributes, is not on every filesystem.
  const [data, meta] = [join(root, 'data'), join(root, 'meta')];
  for (const dir of [data, meta]) mkdirSync(dir);
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const child = spawn(
    binary,
    [
      '--port',
      endpoint.slice('http://'.length),
      '--access',
      S3_TEST_ENV.AWS_ACCESS_KEY_ID,
      '--secret',
      S3_TEST_ENV.AWS_SECRET_ACCESS_KEY,
      'posix',
      '--sidecar',
      meta,
      data,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const client = new S3Client({
    region: S3_TEST_ENV.AWS_REGION,
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_TEST_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: S3_TEST_ENV.AWS_SECRET_ACCESS_KEY },
  });
  // Bounded: a server that does not answer within 20 s is a finding, with its own words attached.
  for (let i = 0; ; i++) {
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      break;
    } catch (err) {
      if (i >= 200 || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`versitygw did not serve S3 at ${endpoint}: ${(err as Error).message}\n${stderr.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    bucket,
    env: { ...S3_TEST_ENV, CHAINSMITH_S3_BUCKET: bucket, CHAINSMITH_S3_ENDPOINT: endpoint },
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
