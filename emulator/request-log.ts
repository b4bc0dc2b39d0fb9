/**
 * The emulator's request log (`GET /_emulator/requests`): the most recent requests, oldest first, at most
 * `capacity` of them. A ring: adding to a full log replaces its oldest entry in place, where dropping it from the
 * front of an array (splice) moved all 10,000 entries on every request of a long-running emulator.
 */
export class RequestLog<T> {
  private readonly ring: T[] = [];
  /** Where the oldest entry is once the ring is full (and so where the next one goes). */
  private oldest = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error("a request log holds at least one entry");
  }

  add(entry: T): void {
    if (this.ring.length < this.capacity) {
      this.ring.push(entry);
      return;
    }
    this.ring[this.oldest] = entry;
    this.oldest = (this.oldest + 1) % this.capacity;
  }

  /** The entries, oldest first: a copy. */
  entries(): T[] {
    return [...this.ring.slice(this.oldest), ...this.ring.slice(0, this.oldest)];
  }

  clear(): void {
    this.ring.length = 0;
    this.oldest = 0;
  }
}
