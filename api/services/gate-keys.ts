import { hash } from 'node:crypto';
import { type KeyRef, type KeyStates, loadGateKeys } from '../../db/queries/gate.ts';
import type { SqlRunner } from '../../db/runner.ts';

/** The gate's key states as the store files them: under digests of the request keys. */

/**
 * The stored states of the partitions' keys (the gate's, or its checkpoints'), by request key, and the digests they
 * are filed under.
 */
export async function loadKeys(
  db: SqlRunner,
  wanted: Iterable<readonly [partition: string, keys: Iterable<string>]>,
  table: KeyStates = 'gate_keys',
): Promise<{ stored: Map<string, string>; digests: Map<string, string> }> {
  // Digests are of whole request keys, which name the client and the server: unique across partitions.
  const digests = new Map<string, string>();
  const refs: KeyRef[] = [];
  for (const [partition, keys] of wanted) {
    for (const key of keys) {
      const digest = keyDigest(key);
      digests.set(key, digest);
      refs.push({ partition, key: digest });
    }
  }
  const byDigest = new Map((await loadGateKeys(db, refs, table)).map((row) => [row.key, row.state]));
  const stored = new Map<string, string>();
  for (const [key, digest] of digests) {
    const state = byDigest.get(digest);
    if (state !== undefined) stored.set(key, state);
  }
  return { stored, digests };
}

/**
 * Keys are filed under a digest: a request key holds a path of up to 4 KB, past what a PostgreSQL index entry can
 * take. 128 bits of SHA-256 leave no collision to expect among any number of keys a store will ever see.
 */
export function keyDigest(key: string): string {
  // The one-shot digest: a Hash object per key cost ~3x as much, on every key of every fold.
  return hash('sha256', key, 'base64url').slice(0, 22);
}
