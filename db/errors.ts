/**
 * What a failed database call means for the request that made it, whichever engine failed:
 * - `unavailable`: the connection was lost or refused (a restart, a failover, a network cut); retrying soon can help.
 * - `conflict`: a concurrent transaction got in the way (serialization failure, deadlock, a lock held past the busy
 *   timeout); the same request again can succeed at once.
 * - `full`: no disk space left for the store; an operator must free some.
 * - `read_only`: the store accepts no writes (a read-only file or mount, a standby); an operator must act.
 * Anything else (null) is a fault in this program, which retrying does not cure.
 */
export type DbFailure = 'unavailable' | 'conflict' | 'full' | 'read_only';

/** PostgreSQL SQLSTATEs (appendix A of its manual) that are not a fault of the query; class 08 is added below. */
const SQLSTATES: Record<string, DbFailure> = {
  '40001': 'conflict', // serialization_failure
  '40P01': 'conflict', // deadlock_detected
  '55P03': 'conflict', // lock_not_available
  '53100': 'full', // disk_full
  '25006': 'read_only', // read_only_sql_transaction
  '53300': 'unavailable', // too_many_connections
  '57P01': 'unavailable', // admin_shutdown
  '57P02': 'unavailable', // crash_shutdown
  '57P03': 'unavailable', // cannot_connect_now (starting up, shutting down, in recovery)
  '57P05': 'unavailable', // idle_session_timeout: the server closed the connection
  '25P03': 'unavailable', // idle_in_transaction_session_timeout: likewise
};

/**
 * A connection the server would not give or keep: class 08 (connection exception) always; otherwise a FATAL, which
 * PostgreSQL sends as it ends the session, of a class that says "not now" rather than "wrong": 53 (insufficient
 * resources: connection slots, memory), 55 (not in prerequisite state: a database not accepting connections, as
 * `ALLOW_CONNECTIONS false` or a template being copied has it) and 57 (operator intervention: shutdown, recovery).
 * The same 55 or 53 raised by a statement is a fault of that statement, not of the connection.
 */
function refusedConnection(code: string, error: object): boolean {
  if (code.startsWith('08')) return true;
  const fatal = 'severity' in error && error.severity === 'FATAL';
  return fatal && /^5[357]/.test(code);
}

/** Socket errors of a connection to the database server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/** node-postgres says these in words only: a connection that ended, never came, or was already broken. */
const LOST_CONNECTION =
  /^Connection terminated|^timeout exceeded when trying to connect|is not queryable|^Query read timeout/;

/** SQLite's primary result code of an extended one (SQLITE_READONLY_DBMOVED is SQLITE_READONLY). */
function sqliteFailure(code: string): DbFailure | null {
  if (code === 'SQLITE_FULL') return 'full';
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) return 'read_only';
  if (/^SQLITE_(BUSY|LOCKED)(_|$)/.test(code)) return 'conflict';
  return null;
}

function failureOf(error: object): DbFailure | null {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  if (code.startsWith('SQLITE_')) return sqliteFailure(code);
  // Before SQLSTATEs: EPIPE has their shape.
  if (NETWORK_CODES.has(code)) return 'unavailable';
  if (/^[0-9A-Z]{5}$/.test(code)) return SQLSTATES[code] ?? (refusedConnection(code, error) ? 'unavailable' : null);
  return 'message' in error && typeof error.message === 'string' && LOST_CONNECTION.test(error.message)
    ? 'unavailable'
    : null;
}

/** The one place that reads database errors; api/app.ts turns the answer into its error body. */
export function classifyDbError(error: unknown): DbFailure | null {
  // An error may wrap the one that matters: a connection timeout its socket error, an AggregateError (one per
  // address tried) its refusals.
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < 16) {
    const next = pending.shift();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    const failure = failureOf(next);
    if (failure !== null) return failure;
    if ('cause' in next) pending.push(next.cause);
    if (next instanceof AggregateError) pending.push(...next.errors);
  }
  return null;
}
