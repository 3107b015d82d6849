import { BUCKETS, type Bucket } from '../shared/classify/types.ts';

export { BUCKETS, type Bucket };

export const BUCKET_LABEL: Readonly<Record<Bucket, string>> = {
  ok: 'OK',
  pending: 'Input asked',
  unknown: 'Outcome not logged',
  refusal: 'Refusal',
  transient: 'Transient',
  throttled: 'Throttled',
  ambiguous: 'Ambiguous',
};

/**
 * Failures at the bottom of a stack, where the eye starts; input requests and requests whose log shows no outcome
 * (neither) then success on top.
 */
export const STACK_ORDER: readonly Bucket[] = [
  'refusal',
  'throttled',
  'transient',
  'ambiguous',
  'pending',
  'unknown',
  'ok',
];

export function isBucket(value: string | null | undefined): value is Bucket {
  return value !== null && value !== undefined && (BUCKETS as readonly string[]).includes(value);
}
