import { type SQL, sql } from 'drizzle-orm';
import { IDENTITY_DIGEST_HEX_CHARS } from '../shared/identity.ts';
import { type RowsColumn, rowsTable } from './queries/lists.ts';
import type { SqlRunner } from './runner.ts';

/**
 * The request identity as the store keeps it, and the one place that converts it (ADR 11). Everyone outside db/ (the
 * API, the dashboard, alerts, `lens report`) names an identity by its public string, `server:` + 32 hex of digest
 * (DOMAIN.md section 5, shared/identity.ts). The store keeps the server once, in the row's own `server` column, and
 * the 128-bit digest as 16 bytes (`identity`): 16 bytes instead of ~42 characters in the row, its index and
 * identity_hour. Identities go in through `storedIdentity` / `identityPairs` / `storedDigest` and come out through
 * `identityText`; SQL parameters carry the digest as hex, which the store turns into bytes (db/queries/lists.ts).
 */

/** An identity as the store keys it: its server and its digest in lowercase hex. */
export interface StoredIdentity {
  server: string;
  digest: string;
}

const DIGEST = new RegExp(`^[0-9a-f]{${IDENTITY_DIGEST_HEX_CHARS}}$`);

/**
 * The server and digest of a public identity, or null for a string that is none (an API caller's typo, a name from
 * a log): it then names no stored identity. The digest is the hex after the last ':', so a server may hold colons.
 */
export function storedIdentity(identity: string): StoredIdentity | null {
  const colon = identity.lastIndexOf(':');
  const digest = identity.slice(colon + 1);
  if (colon < 0 || !DIGEST.test(digest)) return null;
  return { server: identity.slice(0, colon), digest };
}

/**
 * The digest (hex) to store for an identity of a request to `server`, whose row keeps the server. An identity that
 * names another server, or none, would read back as a different one: a bug of the caller, thrown, never stored.
 */
export function storedDigest(identity: string, server: string): string;
export function storedDigest(identity: string | null, server: string): string | null;
export function storedDigest(identity: string | null, server: string): string | null {
  if (identity === null) return null;
  const stored = storedIdentity(identity);
  if (stored === null || stored.server !== server) {
    throw new Error(`the identity ${JSON.stringify(identity)} is not one of server ${JSON.stringify(server)}`);
  }
  return stored.digest;
}

/**
 * The public identity of a row, built in SQL from its `server` and `identity` columns (of `table`, a name in the
 * query's own text, when it names tables), NULL when it has none: every read hands out the string the API shows.
 */
export function identityText(db: SqlRunner, table?: string): SQL {
  const key = `${db.dialect} ${table ?? ''}`;
  let text = IDENTITY_TEXTS.get(key);
  if (text === undefined) {
    const column = (name: string) => (table === undefined ? `"${name}"` : `"${table}"."${name}"`);
    const [server, digest] = [column('server'), column('identity')];
    // SQLite's hex(NULL) is '', not NULL, and its hex is upper case.
    text =
      db.dialect === 'sqlite'
        ? `CASE WHEN ${digest} IS NULL THEN NULL ELSE ${server} || ':' || lower(hex(${digest})) END`
        : `${server} || ':' || encode(${digest}, 'hex')`;
    IDENTITY_TEXTS.set(key, text);
  }
  // Code constants only (the table is named by the query that calls), so it goes in as text: reads build it often.
  return sql.raw(text);
}

const IDENTITY_TEXTS = new Map<string, string>();

/**
 * Public identities as a table of (server, identity, place) to match rows by, bound as one parameter, optionally of
 * one server only. `place` is the identity's index in `identities`, for the caller to name a row's identity by the
 * string it gave; an identity given twice is in the table once, and a string that is no identity not at all (it
 * matches no row). Null when none is left: the caller has nothing to look up.
 */
export function identityPairs(db: SqlRunner, identities: readonly string[], server?: string): SQL | null {
  return identityRows(db, placed(identities), [['place', 'integer']], server);
}

/** `identityPairs` cut per server, for a read of a leg per server (db/queries/lists.ts allPerServer). */
export function identityPairsPerServer(
  db: SqlRunner,
  identities: readonly string[],
  server?: string,
): { server: string; table: SQL }[] {
  return identityRowsPerServer(db, placed(identities), [['place', 'integer']], server);
}

/** Each identity given once, with its first place in `identities`. */
function placed(identities: readonly string[]): [string, number][] {
  const seen = new Set<string>();
  const rows: [string, number][] = [];
  identities.forEach((identity, place) => {
    if (seen.has(identity)) return;
    seen.add(identity);
    rows.push([identity, place]);
  });
  return rows;
}

/**
 * Rows that each start with a public identity as a table of (server, identity, then `more` columns of the rest), as
 * `identityPairs` makes them.
 */
export function identityRows(
  db: SqlRunner,
  rows: readonly IdentityRowValues[],
  more: readonly RowsColumn[],
  server?: string,
): SQL | null {
  const stored = storedRows(rows, server);
  if (stored.length === 0) return null;
  return rowsTable(db, [...IDENTITY_COLUMNS, ...more], stored);
}

type IdentityRowValues = readonly [identity: string, ...rest: unknown[]];

const IDENTITY_COLUMNS: readonly RowsColumn[] = [
  ['server', 'text'],
  ['identity', 'bytea'],
];

/** The rows as stored: (server, digest, then the rest), of `server` only if given; identities not ours left out. */
function storedRows(rows: readonly IdentityRowValues[], server?: string): unknown[][] {
  return rows.flatMap(([identity, ...rest]) => {
    const key = storedIdentity(identity);
    return key === null || (server !== undefined && key.server !== server) ? [] : [[key.server, key.digest, ...rest]];
  });
}

/**
 * `identityRows` cut per server (of `server` only, if given): a table of each server's rows, none empty. Each
 * identity is parsed once, then the rows are grouped by their server.
 */
export function identityRowsPerServer(
  db: SqlRunner,
  rows: readonly IdentityRowValues[],
  more: readonly RowsColumn[],
  server?: string,
): { server: string; table: SQL }[] {
  const byServer = new Map<string, unknown[][]>();
  for (const row of storedRows(rows, server)) {
    const one = row[0] as string;
    const same = byServer.get(one);
    if (same === undefined) byServer.set(one, [row]);
    else same.push(row);
  }
  return [...byServer].map(([one, same]) => ({
    server: one,
    table: rowsTable(db, [...IDENTITY_COLUMNS, ...more], same),
  }));
}
