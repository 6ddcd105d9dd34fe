import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryBackend } from '../../src/artifacts/backend';
import { ArtifactStore } from '../../src/artifacts/store';
import type { ChatMessage } from '../../src/model/client';
import { TranscriptBlobs } from '../../src/setup-agent/progress';

/** A directory backend that counts the bytes written to it. */
class CountingBackend extends DirectoryBackend {
  written = 0;
  override async write(key: string, bytes: Buffer): Promise<void> {
    this.written += bytes.length;
    await super.write(key, bytes);
  }
}

const reply = (i: number): ChatMessage => ({ role: 'assistant', content: `reply ${i}: ${'x'.repeat(200)}` });
const size = (messages: ChatMessage[]) => messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);

test('a transcript saved after every reply writes each message once, and reads back whole after a resume', async () => {
  const backend = new CountingBackend(mkdtempSync(join(tmpdir(), 'chainsmith-transcript-')));
  const store = new ArtifactStore(backend);
  const messages: ChatMessage[] = [{ role: 'system', content: 'set the repository up' }];
  const writer = new TranscriptBlobs(store);
  let refs = await writer.save(messages);
  for (let i = 0; i < 30; i++) {
    messages.push(reply(i));
    refs = await writer.save(messages);
  }
  // 31 saves of a growing conversation: the bytes of its messages, once (a whole copy per save would be ~16×).
  expect(backend.written).toBe(size(messages));
  expect(await TranscriptBlobs.load(store, refs)).toEqual(messages);

  // A resumed stage goes on from the refs its progress holds; it writes only what it adds.
  const resumed = new TranscriptBlobs(store, refs);
  const loaded = await TranscriptBlobs.load(store, refs);
  loaded.push(reply(30));
  const before = backend.written;
  const after = await resumed.save(loaded);
  expect(backend.written - before).toBe(size([reply(30)]));
  expect(await TranscriptBlobs.load(store, after)).toEqual([...messages, reply(30)]);
  await expect(resumed.save(messages.slice(0, 3))).rejects.toThrow('a transcript only grows');
});
