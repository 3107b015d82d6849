import Database from 'better-sqlite3';

/**
 * State the offline report keeps per key (the gate's blocks, each identity's tally) that may outgrow memory on a
 * log of gigabytes: the most recently used entries stay in memory, the rest go to a private temporary SQLite file
 * that is deleted when the run ends. So the report's memory stays flat however many keys the log holds.
 */
/** Entries of each map held in memory (a few MB of gate keys or identity tallies); the rest go to disk. */
export const CACHED_ENTRIES = 20_000;

export class SpillStore {
  private readonly db = new Database('');

  constructor() {
    // A private temporary database: nobody else reads it, and a crash loses nothing worth keeping.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
  }

  /**
   * A map of `name` whose values are JSON, at most `cached` of them in memory; `sortKeyOf` orders `sortedValues`.
   */
  map<V>(name: string, cached: number, sortKeyOf: (value: V) => string = () => ''): SpillMap<V> {
    return new SpillMap<V>(this.db, name, cached, sortKeyOf);
  }

  close(): void {
    this.db.close();
  }
}

export class SpillMap<V> {
  private readonly cache = new Map<string, V>();
  private readonly spilled = new BloomFilter();
  private readonly select: Database.Statement<[string], { value: string }>;
  private readonly upsert: Database.Statement<[string, string, string]>;
  private readonly remove: Database.Statement<[string]>;
  private readonly all: Database.Statement<[], { key: string; value: string }>;
  private readonly sorted: Database.Statement<[], { value: string }>;

  constructor(
    db: Database.Database,
    name: string,
    private readonly cached: number,
    private readonly sortKeyOf: (value: V) => string,
  ) {
    const table = `spill_${name.replace(/\W/g, '_')}`;
    db.exec(`CREATE TABLE ${table} (key TEXT PRIMARY KEY, value TEXT NOT NULL, sort_key TEXT NOT NULL) WITHOUT ROWID`);
    this.select = db.prepare(`SELECT value FROM ${table} WHERE key = ?`);
    this.upsert = db.prepare(`INSERT INTO ${table} (key, value, sort_key) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, sort_key = excluded.sort_key`);
    this.remove = db.prepare(`DELETE FROM ${table} WHERE key = ?`);
    this.all = db.prepare(`SELECT key, value FROM ${table}`);
    this.sorted = db.prepare(`SELECT value FROM ${table} ORDER BY sort_key`);
  }

  get(key: string): V | undefined {
    const held = this.cache.get(key);
    if (held !== undefined) {
      // Re-inserted: the cache's order is least recently used first.
      this.cache.delete(key);
      this.cache.set(key, held);
      return held;
    }
    // Most keys were never spilled (most requests are never refused): the filter spares their lookup.
    if (!this.spilled.mightHold(key)) return undefined;
    const row = this.select.get(key);
    if (row === undefined) return undefined;
    const value = JSON.parse(row.value) as V;
    this.remember(key, value);
    return value;
  }

  /** Values are objects the caller may change in place after `get`: an evicted one is written as it is then. */
  set(key: string, value: V): void {
    this.cache.delete(key);
    this.remember(key, value);
  }

  delete(key: string): void {
    this.cache.delete(key);
    if (this.spilled.mightHold(key)) this.remove.run(key);
  }

  /** Every entry, spilled ones included; the cached ones win over their older copies on disk. */
  *[Symbol.iterator](): Iterator<[string, V]> {
    for (const entry of this.cache) yield entry;
    for (const { key, value } of this.all.iterate()) {
      if (!this.cache.has(key)) yield [key, JSON.parse(value) as V];
    }
  }

  /** Every value in `sortKeyOf` order, sorted on disk: what is in memory is written out first, and stays cached. */
  *sortedValues(): Iterable<V> {
    for (const [key, value] of this.cache) this.write(key, value);
    for (const { value } of this.sorted.iterate()) yield JSON.parse(value) as V;
  }

  private remember(key: string, value: V): void {
    this.cache.set(key, value);
    if (this.cache.size <= this.cached) return;
    const [oldest, evicted] = this.cache.entries().next().value as [string, V];
    this.cache.delete(oldest);
    this.write(oldest, evicted);
  }

  private write(key: string, value: V): void {
    this.upsert.run(key, JSON.stringify(value), this.sortKeyOf(value));
    this.spilled.add(key);
  }
}

/**
 * A Bloom filter over the spilled keys, 8 MB whatever their number: "certainly not spilled" for most keys, so a
 * miss costs no SQLite lookup. Its false positives only cost a lookup that finds nothing.
 */
class BloomFilter {
  private static readonly BITS = 2 ** 26;
  private readonly bits = new Uint8Array(BloomFilter.BITS / 8);

  add(key: string): void {
    for (const bit of this.positions(key)) this.bits[bit >>> 3] = (this.bits[bit >>> 3] ?? 0) | (1 << (bit & 7));
  }

  mightHold(key: string): boolean {
    for (const bit of this.positions(key)) if (((this.bits[bit >>> 3] ?? 0) & (1 << (bit & 7))) === 0) return false;
    return true;
  }

  /** Three positions from two 32-bit FNV-1a hashes (Kirsch-Mitzenmacher). */
  private positions(key: string): number[] {
    let a = 0x811c9dc5;
    let b = 0x01000193 ^ key.length;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    const mask = BloomFilter.BITS - 1;
    return [a & mask, (a + b) & mask, (a + 2 * b) & mask].map((x) => x >>> 0);
  }
}

/** A record over a SpillMap, read and written by key only, as the gate uses its partitions' keys. */
export function spilledRecord<V>(map: SpillMap<V>): Record<string, V> {
  return new Proxy(Object.create(null) as Record<string, V>, {
    get: (_, key) => (typeof key === 'string' ? map.get(key) : undefined),
    set: (_, key, value) => {
      if (typeof key === 'string') map.set(key, value as V);
      return true;
    },
    deleteProperty: (_, key) => {
      if (typeof key === 'string') map.delete(key);
      return true;
    },
  });
}
