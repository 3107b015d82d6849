import { BUCKET_LABEL, type Bucket, isBucket } from '../buckets.ts';

/**
 * A bucket in its colour, with the kind when there is one worth saying: inside the badge, or on a line of its own
 * under it (`stacked`) where a narrow column cannot hold a long kind.
 */
export function BucketBadge({ bucket, kind, stacked }: { bucket: Bucket | string; kind?: string; stacked?: boolean }) {
  const known: Bucket = isBucket(bucket) ? bucket : 'ambiguous';
  const showKind = kind !== undefined && kind !== known && kind !== 'ok';
  if (stacked) {
    return (
      <span>
        <span className={`badge badge-${known}`}>{BUCKET_LABEL[known]}</span>
        {showKind ? <span className="muted small block">{kind}</span> : null}
      </span>
    );
  }
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
