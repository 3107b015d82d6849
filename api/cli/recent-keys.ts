/**
 * Keys seen lately in log time: de-duplication without a set of every key in a log. A key is kept while the log is
 * within `windowMs` of the last time it was seen, and at most `maxKeys` are kept (past that the oldest go first,
 * which narrows the window on a very busy log instead of growing without bound).
 */
export class RecentKeys {
  /** Key → when it was last seen. */
  private readonly seen = new Map<string, number>();
  /**
   * Every sighting in the order added, from `head` on: forgetting takes them from the front. (Iterating the Map
   * instead would step over every entry deleted since its last rehash, on every call.)
   */
  private keys: string[] = [];
  private times: number[] = [];
  private head = 0;

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  has(key: string): boolean {
    return this.seen.has(key);
  }

  add(key: string, ts: number): void {
    this.seen.set(key, ts);
    this.keys.push(key);
    this.times.push(ts);
    while (this.seen.size > this.maxKeys) this.dropOldest();
  }

  /**
   * Forgets the keys last seen more than the window before `now`. Events come nearly in time order, so stopping at
   * the first sighting still inside the window may keep a few older keys a little longer, never drops a recent one.
   */
  forget(now: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) < now - this.windowMs) this.dropOldest();
    if (this.head > 4096 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  private dropOldest(): void {
    const key = this.keys[this.head] as string;
    // A key seen again since has a later sighting further on, which forgets it in its turn.
    if (this.seen.get(key) === this.times[this.head]) this.seen.delete(key);
    this.head++;
  }
}
