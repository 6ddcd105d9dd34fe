import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';
import { runOneChain } from '../support/one-chain';
import { freePort } from '../support/ports';

// moto's S3-compatible server, installed by scripts/provision.sh into its Python venv.
const MOTO = join(process.env.CHAINSMITH_HOME ?? join(homedir(), '.chainsmith'), 'python', 'bin', 'moto_server');

describe('the artifact store on an S3-compatible bucket', () => {
  let moto: ChildProcess;
  let endpoint: string;
  const bucket = 'chainsmith-artifacts';

  beforeAll(async () => {
    expect(existsSync(MOTO)).toBe(true);
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    moto = spawn(MOTO, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    const s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true });
    for (let i = 0; ; i++) {
      try {
        await s3.send(new CreateBucketCommand({ Bucket: bucket }));
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });

  afterAll(() => moto.kill());

  test('blobs and pointers round-trip; a missing blob is a clear error', async () => {
    const config = testConfig({
      CHAINSMITH_S3_BUCKET: bucket,
      CHAINSMITH_S3_ENDPOINT: endpoint,
      CHAINSMITH_S3_PREFIX: 'unit',
    });
    const store = ArtifactStore.fromConfig(config);
    const ref = await store.putJson({ hello: 'bucket' });
    expect(JSON.parse(await store.getText(ref))).toEqual({ hello: 'bucket' });
    await store.setPointer('rollouts/x/stage-0/round-0', ref);
    expect(await store.getPointer('rollouts/x/stage-0/round-0')).toBe(ref);
    expect(await store.getPointer('rollouts/none')).toBeUndefined();
    await expect(store.get(`sha256:${'0'.repeat(64)}`)).rejects.toThrow(`is missing from s3://${bucket}/unit`);
  });

  test('a whole chain runs with its artifacts in the bucket and none on local disk', async () => {
    const config = testConfig({
      CHAINSMITH_S3_BUCKET: bucket,
      CHAINSMITH_S3_ENDPOINT: endpoint,
      CHAINSMITH_S3_PREFIX: 'chain',
    });
    const chain = await demoChain('s3');
    const { result } = await runOneChain(config, chain, { policy: 'gold-replay' });
    expect(result.status).toBe('accepted');
    const listed = await new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true }).send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'chain/' }),
    );
    expect(listed.KeyCount).toBeGreaterThan(10);
    expect(existsSync(join(config.dataDir, 'artifacts'))).toBe(false);
  });
});
