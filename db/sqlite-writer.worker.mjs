// The embedded store's writer, on its own thread: SQLite commits on one core while the request thread parses,
// validates and classifies the next chunk on the other. Plain JavaScript so that it loads the same way under node,
// tsx and vitest, none of which has to lend it a TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

let db;
let insert;
let insertBlock;
let dropBlock;
/** Prepared statements by SQL text: query functions render the same text every time. */
let statements;

/** Opens the writer's connection; until one opens (a failure may stop it), each message tries again. */
function open() {
  const next = new Database(workerData.file);
  try {
    configure(next);
  } catch (error) {
    next.close();
    throw error;
  }
}

function configure(connection) {
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma('busy_timeout = 5000');
  // A checkpoint every ~40 MB of WAL (10,000 pages) instead of SQLite's default 1,000: an ingest transaction writes
  // more than 1,000 pages, so each commit ran a checkpoint too, writing back the same hot pages (rollups, index
  // interiors) every time. Measured at 200k events: commit time ~4.0 -> ~2.7 s, bare insert +12-38%, ingest over
  // HTTP +7-12%. The WAL file keeps its high-water size (tens of MB) between checkpoints.
  connection.pragma('wal_autocheckpoint = 10000');
  // 16 MiB. Inserts append to the table and to the time-ordered indexes, whose hot pages are few; the other indexes
  // (event id, identity, correlation) take keys all over, and past a few million events no cache of a sensible size
  // holds them: their pages come from the OS page cache either way. Measured at 1M events: ingest as fast as with
  // 64 MiB, and 48 MB less resident.
  connection.pragma('cache_size = -16384');
  insert = connection.prepare(workerData.insertSql);
  insertBlock = connection.prepare('INSERT INTO event_bodies (data) VALUES (?)');
  dropBlock = connection.prepare('DELETE FROM event_bodies WHERE id = ?');
  statements = new Map();
  db = connection;
}

function reopen() {
  try {
    db?.close();
  } catch {
    // closing a broken connection may fail too; it is dropped either way
  }
  db = undefined;
  open();
}

open();
const width = workerData.insertWidth;
/** Each row ends with body_block, body_line: the block's place in the message's blocks, then its line. */
const blockColumn = width - 2;

function statement(sql) {
  let prepared = statements.get(sql);
  if (prepared === undefined) {
    prepared = db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared;
}

/**
 * Stores the blocks of lines, then the rows laid out flat, `width` values each, pointing at them; answers each row's
 * seq, or 0 for a duplicate. A block whose rows were all duplicates (a batch sent again) is dropped.
 */
function insertFlat(values, blocks) {
  const ids = blocks.map((block) => insertBlock.run(block).lastInsertRowid);
  const used = new Uint8Array(blocks.length);
  const count = values.length / width;
  const seqs = new Float64Array(count);
  for (let row = 0; row < count; row++) {
    const rowValues = values.slice(row * width, (row + 1) * width);
    const block = rowValues[blockColumn];
    rowValues[blockColumn] = ids[block];
    const result = insert.run(rowValues);
    if (result.changes > 0) {
      seqs[row] = Number(result.lastInsertRowid);
      used[block] = 1;
    }
  }
  ids.forEach((id, block) => {
    if (used[block] === 0) dropBlock.run(id);
  });
  return seqs;
}

/**
 * A read's rows as arrays beside their column names, as JSON unless a value is bytes (JSON would not keep them):
 * better-sqlite3 builds a row object property by property, and structured cloning copies it property by property
 * again, so for the fold's 10,000 rows of 29 columns this is ~140 ms of this thread instead of ~260 ms, and ~20 ms
 * of the request thread's instead of ~50 ms (db/sqlite.ts makes the objects).
 */
function readRows(prepared, params) {
  const rows = prepared.raw(true).all(params);
  const columns = prepared.columns().map((column) => column.name);
  return rows.some(holdsBytes) || holdsLongText(rows) ? { columns, rows } : { columns, json: JSON.stringify(rows) };
}

function holdsBytes(row) {
  return row.some((value) => value instanceof Uint8Array);
}

/**
 * Whether rows hold long strings (a partition's storm state), judged by their first few: cloned, they cost a copy;
 * in JSON every quote in them is escaped here and unescaped by the reader (db/sqlite.ts holdsLongText, the same
 * rule for what is sent here).
 */
function holdsLongText(rows) {
  for (let r = 0; r < rows.length && r < 8; r++) {
    for (const value of rows[r]) if (typeof value === 'string' && value.length > 512) return true;
  }
  return false;
}

/**
 * Ends the open transaction, if any. After a failed COMMIT SQLite may have rolled it back itself (SQLITE_FULL,
 * SQLITE_IOERR do that), so there may be nothing to end. A connection that cannot roll back is replaced: closing it
 * discards its transaction, whose frames the WAL never marked committed.
 */
function rollback() {
  if (!db.inTransaction) return;
  try {
    db.exec('ROLLBACK');
  } catch (error) {
    reopen();
    throw error;
  }
}

function handle(message) {
  if (db === undefined && message.op !== 'close') open();
  switch (message.op) {
    case 'exec':
      db.exec(message.sql);
      return null;
    case 'begin':
      // Transactions are serialised, so one still open here was abandoned: its ROLLBACK failed or never came.
      // Statements must never join it (they would vanish with it), so it goes first.
      if (db.inTransaction) rollback();
      db.exec('BEGIN IMMEDIATE');
      return null;
    case 'rollback':
      rollback();
      return null;
    case 'run':
      return statement(message.sql).run(message.params).changes;
    case 'all':
      return readRows(statement(message.sql), message.params);
    case 'each': {
      const prepared = statement(message.sql);
      const rows = typeof message.rows === 'string' ? JSON.parse(message.rows) : message.rows;
      for (const row of rows) prepared.run(row);
      return null;
    }
    case 'insert':
      return insertFlat(JSON.parse(message.values), message.blocks);
    case 'close':
      db?.close();
      return null;
    default:
      throw new Error(`unknown writer operation ${message.op}`);
  }
}

parentPort.on('message', (message) => {
  try {
    const result = handle(message);
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    parentPort.postMessage({ id: message.id, result }, transfer);
  } catch (error) {
    // The code (SQLITE_FULL, SQLITE_BUSY, ...) says what the failure costs the request: db/errors.ts reads it.
    const code = error instanceof Error && typeof error.code === 'string' ? error.code : undefined;
    parentPort.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error), code });
  }
});
