import { hash } from 'node:crypto';
import { canonicalJsonOrNull } from './canonical-json.ts';
import type { LensEvent } from './event.ts';

/**
 * The producer's id, or, for an event that has none, `h:` and a digest of the event as validated, in canonical
 * JSON: the same event sent twice is stored once whether it came as an NDJSON line or an array element, with
 * whatever whitespace, key order or timestamp form (ISO or epoch) its encoder chose.
 */
export function eventIdOf(event: LensEvent): string {
  if (event.id !== undefined) return event.id;
  // One with no canonical form (a lone surrogate, absurd nesting) is still storable under a plain digest.
  const text = canonicalJsonOrNull(event) ?? JSON.stringify(event);
  return `h:${hash('sha256', text, 'hex').slice(0, 32)}`;
}
