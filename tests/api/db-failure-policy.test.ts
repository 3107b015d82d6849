import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toApiError } from '../../api/app.ts';
import { nextWait, RETRY_BUDGET_MS } from '../../api/cli/ship.ts';
import { ApiError } from '../../api/errors.ts';
import { classifyDbError, type DbFailure } from '../../db/errors.ts';
import { openTempSqlite, POSTGRES_ADMIN_URL, STORE_KINDS } from '../support/stores.ts';

/** The error `work` throws (the test fails if it throws none). */
async function thrown(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('classifyDbError on SQLite errors', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lens-errors-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads busy, full and read-only as what they cost, and anything else as a bug', async () => {
    const file = join(dir, 'a.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE t (v BLOB NOT NULL)');
    const other = new Database(file, { timeout: 0 });
    db.exec('BEGIN IMMEDIATE');
    expect(classifyDbError(await thrown(() => other.exec('BEGIN IMMEDIATE')))).toBe('conflict');
    db.exec('ROLLBACK');
    other.close();

    const readonly = new Database(file, { readonly: true });
    expect(classifyDbError(await thrown(() => readonly.exec("INSERT INTO t VALUES ('x')")))).toBe('read_only');
    readonly.close();

    // A store that may not grow past its pages is full the way a full disk is.
    db.pragma('max_page_count = 4');
    const full = await thrown(() => {
      for (;;) db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(2000));
    });
    expect((full as { code: string }).code).toBe('SQLITE_FULL');
    expect(classifyDbError(full)).toBe('full');

    expect(classifyDbError(await thrown(() => db.exec('INSERT INTO t VALUES (NULL)')))).toBeNull();
    expect(classifyDbError(await thrown(() => db.exec('SELEC 1')))).toBeNull();
    db.close();
  });

  it("keeps SQLite's code across the writer thread", async () => {
    const { store, dispose } = await openTempSqlite();
    try {
      const error = await thrown(() => store.run(sql`INSERT INTO servers (name) VALUES (NULL)`));
      expect(error).toMatchObject({ code: expect.stringMatching(/^SQLITE_CONSTRAINT/) });
      expect(classifyDbError(error)).toBeNull();
      // The writer is still usable after a failed statement.
      expect(await store.run(sql`INSERT INTO servers (name, overrides, updated_at) VALUES ('a', '[]', 0)`)).toBe(1);
    } finally {
      await dispose();
    }
  });
});

const postgres = STORE_KINDS.find((kind) => kind.name === 'postgres');

describe.skipIf(postgres?.unavailable !== null)('classifyDbError on PostgreSQL errors', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
  });
  afterAll(async () => client.end());

  /** An error with this SQLSTATE, raised by the server itself. */
  const raised = (sqlstate: string) =>
    thrown(() => client.query(`DO $$ BEGIN RAISE EXCEPTION 'test' USING ERRCODE = '${sqlstate}'; END $$`));

  it.each<[string, DbFailure | null]>([
    ['40001', 'conflict'],
    ['40P01', 'conflict'],
    ['53100', 'full'],
    ['25006', 'read_only'],
    ['57P01', 'unavailable'],
    ['57P03', 'unavailable'],
    ['08006', 'unavailable'],
    ['53300', 'unavailable'],
    // Raised by a statement, not the server refusing the session: a fault of the statement.
    ['55000', null],
    ['23505', null],
    ['42601', null],
  ])('SQLSTATE %s is %s', async (sqlstate, failure) => {
    const error = await raised(sqlstate);
    expect(error).toMatchObject({ code: sqlstate });
    expect(classifyDbError(error)).toBe(failure);
  });

  it('reads a FATAL that refuses the session (classes 53, 55, 57) as unavailable, another FATAL not', () => {
    const fatal = (code: string) => Object.assign(new Error('refused'), { code, severity: 'FATAL' });
    for (const code of ['55000', '53300', '53200', '57P01', '57P03', '57P04'])
      expect(classifyDbError(fatal(code)), code).toBe('unavailable');
    for (const code of ['28P01', '3D000', '42501']) expect(classifyDbError(fatal(code)), code).toBeNull();
  });

  it('reads a refused connection as unavailable', async () => {
    const nobody = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/postgres' });
    const error = await thrown(() => nobody.connect());
    expect(classifyDbError(error)).toBe('unavailable');
  });
});

describe('classifyDbError on what node-postgres says in words', () => {
  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
  ])('%s', (message) => {
    expect(classifyDbError(new Error(message))).toBe('unavailable');
  });

  it('looks through causes and aggregates, and not at unrelated codes', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    expect(classifyDbError(new AggregateError([refused], 'all addresses failed'))).toBe('unavailable');
    expect(classifyDbError(new Error('timeout', { cause: refused }))).toBe('unavailable');
    expect(classifyDbError(Object.assign(new Error('broken pipe'), { code: 'EPIPE' }))).toBe('unavailable');
    expect(classifyDbError(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeNull();
    expect(classifyDbError(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeNull();
    expect(classifyDbError('a string')).toBeNull();
  });
});

describe('toApiError', () => {
  const sqliteError = (code: string) => Object.assign(new Error(code), { code });

  it.each([
    [
      'unavailable',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      503,
      'store_unavailable',
    ],
    ['conflict', sqliteError('SQLITE_BUSY'), 503, 'store_busy'],
    ['full', sqliteError('SQLITE_FULL'), 507, 'store_full'],
    ['read only', sqliteError('SQLITE_READONLY'), 503, 'store_read_only'],
  ])('a store %s is %d %s, retryable after Retry-After', (_, error, status, code) => {
    const body = toApiError(error).toBody().error;
    expect(toApiError(error).status).toBe(status);
    expect(body).toMatchObject({ code, retryable: true, fix: expect.any(String) });
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('asks an operator to act on a full or read-only store: a long Retry-After and what to do', () => {
    const full = toApiError(sqliteError('SQLITE_FULL')).toBody().error;
    expect(full).toMatchObject({ retryAfterSeconds: 60, fix: expect.stringContaining('Free disk space') });
    const readOnly = toApiError(Object.assign(new Error('ro'), { code: '25006' })).toBody().error;
    expect(readOnly).toMatchObject({ retryAfterSeconds: 60, message: expect.stringContaining('read-only') });
  });

  it('calls anything else a bug: 500, not retryable, no Retry-After', () => {
    const error = toApiError(new TypeError('x is undefined'));
    expect(error.status).toBe(500);
    expect(error.toBody().error).toEqual({
      code: 'internal',
      message: 'the server failed to answer this request',
      fix: expect.stringContaining('will not help'),
      retryable: false,
    });
  });

  it('leaves our own errors as they are', () => {
    const own = new ApiError('not_found', 'no such thing');
    expect(toApiError(own)).toBe(own);
  });
});

describe("the shipper's nextWait", () => {
  const calm = { random: () => 0 };

  it('never retries a 4xx other than 429, nor a 5xx our server calls not retryable', () => {
    for (const status of [400, 401, 403, 404, 408, 409, 413, 415, 422]) {
      expect(nextWait(1, { status, retryable: true }, calm)).toBeNull();
    }
    expect(nextWait(1, { status: 500, retryable: false }, calm)).toBeNull();
  });

  it('backs off from 1 s, doubling to a minute, for no answer, a proxy 5xx or a 429 without Retry-After', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((n) => nextWait(n, { status: 0 }, calm))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
    ]);
    expect(nextWait(2, { status: 502 }, calm)).toBe(2_000);
    expect(nextWait(1, { status: 429 }, calm)).toBe(1_000);
  });

  it('never waits less than Retry-After, in seconds or as a date', () => {
    expect(nextWait(1, { status: 429, retryAfter: '7' }, calm)).toBe(7_000);
    expect(nextWait(1, { status: 503, retryAfter: '2', retryable: true }, calm)).toBe(2_000);
    // Later attempts back off past a short Retry-After.
    expect(nextWait(5, { status: 503, retryAfter: '2', retryable: true }, calm)).toBe(16_000);
    const now = Date.parse('2026-11-02T12:00:00Z');
    expect(nextWait(1, { status: 503, retryAfter: 'Mon, 02 Nov 2026 12:00:30 GMT' }, { ...calm, now })).toBe(30_000);
  });

  it('waits at least a minute on a full disk', () => {
    expect(nextWait(1, { status: 507, retryable: true }, calm)).toBe(60_000);
    expect(nextWait(1, { status: 507, retryAfter: '60', retryable: true }, calm)).toBe(60_000);
    expect(nextWait(1, { status: 507, retryAfter: '120', retryable: true }, calm)).toBe(120_000);
  });

  it('adds at most 20% of jitter', () => {
    expect(nextWait(3, { status: 503 }, { random: () => 0.999 })).toBe(Math.round(4_000 * 1.1998));
  });

  it('keeps a batch going through a database outage for the retry budget (five minutes unless told), then stops', () => {
    const outage = (budgetMs?: number) => {
      let waitedMs = 0;
      let attempts = 0;
      for (;;) {
        const wait = nextWait(
          attempts + 1,
          { status: 503, retryAfter: '2', retryable: true },
          { waitedMs, budgetMs, ...calm },
        );
        if (wait === null) break;
        attempts++;
        waitedMs += wait;
      }
      return { waitedMs, attempts };
    };
    const byDefault = outage();
    expect(byDefault.waitedMs).toBe(RETRY_BUDGET_MS);
    expect(RETRY_BUDGET_MS).toBe(5 * 60_000);
    expect(byDefault.attempts).toBeGreaterThan(5);
    expect(byDefault.attempts).toBeLessThan(25);
    // `lens ingest --give-up-after 30s`: the same policy, over a shorter budget.
    expect(outage(30_000)).toEqual({ waitedMs: 30_000, attempts: 5 });
  });
});
