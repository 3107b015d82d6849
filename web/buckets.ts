import { BUCKETS, type Bucket } from '../shared/classify/types.ts';

export { BUCKETS, type Bucket };

export const BUCKET_LABEL: Readonly<Record<Bucket, string>> = {
  ok: 'OK',
  pending: 'Input asked',
  refusal: 'Refusal',
  transient: 'Transient',
  throttled: 'Throttled',
  ambiguous: 'Ambiguous',
};

/** Failures at the bottom of a stack, where the eye starts; input requests (neither) then success on top. */
export const STACK_ORDER: readonly Bucket[] = ['refusal', 'throttled', 'transient', 'ambiguous', 'pending', 'ok'];

export function isBucket(value: string | null | undefined): value is Bucket {
  return value !== null && value !== undefined && (BUCKETS as readonly string[]).includes(value);
}
