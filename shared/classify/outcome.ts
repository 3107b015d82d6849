import type { Kind } from './kinds.ts';
import type { Bucket, Classification, Evidence } from './types.ts';

/**
 * Every default outcome is built once, at module load, and frozen: the hot path hands out shared constants and
 * allocates nothing. Callers that want to change a classification copy it first (a frozen object throws).
 */
export function outcome(rule: string, bucket: Bucket, kind: Kind, evidence: Evidence): Classification {
  return Object.freeze({ bucket, kind, rule, evidence });
}

export const OK = outcome('ok', 'ok', 'ok', 'none');
