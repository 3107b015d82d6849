import { BUCKET_LABEL, type Bucket, isBucket } from '../buckets.ts';

/** A bucket in its colour, with the kind when there is one worth saying. */
export function BucketBadge({ bucket, kind }: { bucket: Bucket | string; kind?: string }) {
  const known: Bucket = isBucket(bucket) ? bucket : 'ambiguous';
  const showKind = kind !== undefined && kind !== known && kind !== 'ok';
  return (
    <span className={`badge badge-${known}`}>
      {BUCKET_LABEL[known]}
      {showKind ? <span className="badge-kind"> · {kind}</span> : null}
    </span>
  );
}

export function AvoidableMark({ avoidable }: { avoidable: boolean }) {
  return avoidable ? (
    <span className="mark-avoidable" title="A correct client would not have sent this">
      avoidable
    </span>
  ) : (
    <span className="muted">needed</span>
  );
}
