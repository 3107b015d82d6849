import { BUCKET_LABEL, type Bucket, STACK_ORDER } from '../buckets.ts';
import { formatCount } from '../format.ts';

/** A row's traffic as one 100 % bar split by bucket: the mix, readable without a chart. */
export function BucketStrip({ buckets, total }: { buckets: Readonly<Record<Bucket, number>>; total: number }) {
  const title = STACK_ORDER.map((bucket) => `${BUCKET_LABEL[bucket]} ${formatCount(buckets[bucket])}`).join(', ');
  return (
    <span className="strip" title={title} role="img" aria-label={title}>
      {total === 0
        ? null
        : STACK_ORDER.map((bucket) =>
            buckets[bucket] === 0 ? null : (
              <span
                key={bucket}
                className={`strip-part swatch-${bucket}`}
                style={{ width: `${(buckets[bucket] / total) * 100}%` }}
              />
            ),
          )}
    </span>
  );
}
