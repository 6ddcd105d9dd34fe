import { CappedOutput } from '../../src/container/output';

/** The stream as a whole, cut as the cap says: its first and last halves kept, the middle counted. */
function expected(stream: string, cap: number): string {
  const half = Math.floor(cap / 2);
  if (stream.length <= 2 * half) return stream;
  const cut = stream.length - 2 * half;
  return `${stream.slice(0, half)}\n[... ${cut} characters cut from the middle of this output ...]\n${stream.slice(-half)}`;
}

test.each([
  ['under the cap', 900, 7],
  ['just over it', 1_003, 10],
  ['many times over, in small chunks', 25_000, 3],
  ['many times over, in chunks larger than the cap', 25_000, 997],
])('keeps the head and tail of a stream %s', (_name, length, chunkSize) => {
  const stream = Array.from({ length }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join('');
  const out = new CappedOutput(1_000);
  for (let i = 0; i < stream.length; i += chunkSize) out.push(stream.slice(i, i + chunkSize));
  expect(out.text()).toBe(expected(stream, 1_000));
  expect(out.cut).toBe(Math.max(0, length - 1_000));
});
