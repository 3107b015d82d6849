import { hash } from 'node:crypto';

/**
 * A join key (shared/frames.ts correlationOf) as the store keeps it: its kind (`tp:` a traceparent, `rpc:` a session
 * and JSON-RPC id) as it is, since the join tells a trace from the rest by it (shared/request-join.ts), and the rest
 * as 96 bits of its SHA-256 in base64url. The join only ever compares keys for equality, and the long form cost the
 * row and its index ~40 bytes an event for a session key, ~80 for a traceparent (ADR 11). Migration
 * compact_correlation rewrote stored keys the same way: SQLite through this function, PostgreSQL in SQL.
 */
export function storedCorrelation(key: string | null): string | null {
  if (key === null) return null;
  return `${key.slice(0, key.indexOf(':') + 1)}${hash('sha256', key, 'base64url').slice(0, 16)}`;
}
