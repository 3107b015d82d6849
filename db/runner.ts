import type { SQL } from 'drizzle-orm';
import type { PackedRows } from './event-row.ts';

/**
 * The one seam between query functions and the two engines. Queries in db/queries are written once with drizzle's
 * `sql` template (always parameterised) and run on either store through this interface.
 */
export interface SqlRunner {
  readonly dialect: 'sqlite' | 'postgres';
  all<T>(query: SQL): Promise<T[]>;
  /** Runs a statement and answers the number of rows it changed. */
  run(query: SQL): Promise<number>;
  /**
   * Where the engine binds parameters cheaply (SQLite, in process): runs one prepared statement once per row, each
   * row's values bound to its `?` placeholders in order. The text is built from code constants only, never from
   * values. PostgreSQL runners leave it out: a round trip per row would cost more than one statement over arrays.
   */
  runEach?(statement: string, rows: readonly (readonly unknown[])[]): Promise<void>;
}

/** A runner inside a transaction; it also owns the hot ingest path. */
export interface TxRunner extends SqlRunner {
  /**
   * Inserts rows with a prepared, batched statement; answers each row's seq, by its place in `packed.rows`: 0 for a
   * row not stored (one stored before, or an earlier copy in the same rows, is kept under its own seq).
   */
  insertEvents(packed: PackedRows): Promise<ArrayLike<number>>;
}

export interface Store extends SqlRunner {
  /** Runs `work` in one transaction: all of it commits, or none of it. Writers are serialised. */
  transaction<T>(work: (tx: TxRunner) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** A short description for logs, never containing credentials. */
  readonly description: string;
}
