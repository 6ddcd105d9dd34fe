/** Keeps the head and tail of a stream of unknown size, counting what falls in between. */
export class CappedOutput {
  private head = '';
  /** The tail's chunks, trimmed to half the cap only once they hold twice that: each character is copied a bounded number of times. */
  private tailChunks: string[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: string): void {
    this.total += chunk.length;
    const half = Math.floor(this.cap / 2);
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    if (!chunk) return;
    this.tailChunks.push(chunk);
    this.tailLength += chunk.length;
    if (this.tailLength > 2 * half) this.trimTail(half);
  }

  private trimTail(half: number): void {
    const tail = this.tailChunks.join('').slice(-half);
    this.tailChunks = tail ? [tail] : [];
    this.tailLength = tail.length;
  }

  private get tail(): string {
    this.trimTail(Math.floor(this.cap / 2));
    return this.tailChunks[0] ?? '';
  }

  /** Characters dropped from the middle. */
  get cut(): number {
    return this.total - this.head.length - this.tail.length;
  }

  text(): string {
    const tail = this.tail;
    if (this.cut <= 0) return this.head + tail;
    return `${this.head}\n[... ${this.cut} characters cut from the middle of this output ...]\n${tail}`;
  }
}
