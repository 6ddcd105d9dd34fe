/**
 * A Map that keeps its `limit` most recently used keys: reading or writing a key makes it the newest,
 * and a write past the limit drops the oldest. For per-process bookkeeping whose keys are only
 * needed while they are in use (a worker runs a few dozen activities at once, and thousands over its life).
 */
export class RecentMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      // A Map iterates in insertion order: re-inserting makes the key the newest.
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value!);
  }

  delete(key: K): void {
    this.map.delete(key);
  }
}
