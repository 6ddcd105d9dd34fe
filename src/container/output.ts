/** Keeps the head and tail of a stream of unknown size, counting what falls in between. */
export class CappedOutput {
  private head = '';
  private tail = '';
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
    if (chunk) this.tail = (this.tail + chunk).slice(-half);
  }

  /** Characters dropped from the middle. */
  get cut(): number {
    return this.total - this.head.length - this.tail.length;
  }

  text(): string {
    if (this.cut <= 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.cut} characters cut from the middle of this output ...]\n${this.tail}`;
  }
}
