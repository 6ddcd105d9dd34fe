/**
 * The last `limit` bytes of a stream, kept without copying every chunk: chunks are dropped from the
 * front as whole ones while what is left still holds `limit`, and cut once at the end.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    if (all.length <= this.limit) return all.toString('utf8');
    this.dropped = true;
    return all.subarray(all.length - this.limit).toString('utf8');
  }
}
