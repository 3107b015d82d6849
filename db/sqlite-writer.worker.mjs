// The embedded store's writer, on its own thread: SQLite commits on one core while the request thread parses,
// validates and classifies the next chunk on the other. Plain JavaScript so that it loads the same way under node,
// tsx and vitest, none of which has to lend it a TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
// 16 MiB. Inserts append to the table and to the time-ordered indexes, whose hot pages are few; the other indexes
// (event id, identity, correlation) take keys all over, and past a few million events no cache of a sensible size
// holds them: their pages come from the OS page cache either way. Measured at 1M events: ingest as fast as with
// 64 MiB, and 48 MB less resident.
db.pragma('cache_size = -16384');

const insert = db.prepare(workerData.insertSql);
const width = workerData.insertWidth;
/** Prepared statements by SQL text: query functions render the same text every time. */
const statements = new Map();

function statement(sql) {
  let prepared = statements.get(sql);
  if (prepared === undefined) {
    prepared = db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared;
}

/** Inserts rows laid out flat, `width` values each; answers which of them were new (1) or duplicates (0). */
function insertFlat(values) {
  const count = values.length / width;
  const fresh = new Uint8Array(count);
  for (let row = 0; row < count; row++) {
    fresh[row] = insert.run(values.slice(row * width, (row + 1) * width)).changes > 0 ? 1 : 0;
  }
  return fresh;
}

function handle(message) {
  switch (message.op) {
    case 'exec':
      db.exec(message.sql);
      return null;
    case 'run':
      return statement(message.sql).run(message.params).changes;
    case 'all':
      return statement(message.sql).all(message.params);
    case 'insert':
      return insertFlat(message.values);
    case 'close':
      db.close();
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
    parentPort.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
