/**
 * A map of at most `capacity` entries: setting one more drops the least recently used (read by
 * `get`, or set). The bound of every cache a process (a Lambda container) keeps for its lifetime
 * whose keys come from callers or the outside (tokens, key ids, scripts): without one it would grow
 * with every distinct key sent to it.
 */
export class LruMap<K, V> {
  // A Map iterates in insertion order: taking an entry out and in again makes it the most recent.
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`an LruMap holds at least one entry, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Sets the value, the most recently used; past the capacity, the least recently used goes. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
