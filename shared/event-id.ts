import { hash } from 'node:crypto';
import type { LensEvent } from './event.ts';

/**
 * The producer's id, or, for an event that has none, `h:` and a digest of its line: the same line sent twice is
 * then stored once, whether it came through the API or was classified offline.
 */
export function eventIdOf(event: LensEvent, line: string): string {
  return event.id ?? `h:${hash('sha256', line, 'hex').slice(0, 32)}`;
}
