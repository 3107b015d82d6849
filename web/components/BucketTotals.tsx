import { BUCKET_LABEL, BUCKETS } from '../buckets.ts';
import { formatCount, formatShare, shareOf } from '../format.ts';

export interface Totals {
  total: number;
  avoidable: number;
  buckets: Readonly<Record<(typeof BUCKETS)[number], number>>;
}

interface BucketTotalsProps {
  /** Undefined while loading: the cards keep their place and show a dash. */
  counts: Totals | undefined;
}

/** Requests, each bucket and the avoidable requests of a range, each with its share of all requests. */
export function BucketTotals({ counts }: BucketTotalsProps) {
  const total = counts?.total;
  const avoidable = counts?.avoidable;
  const cards = [
    { key: 'requests', label: 'Requests', value: total, share: null, className: 'total-requests' },
    ...BUCKETS.map((bucket) => ({
      key: bucket,
      label: BUCKET_LABEL[bucket],
      value: counts?.buckets[bucket],
      share: counts ? shareOf(counts.buckets[bucket], counts.total) : null,
      className: `bucket-${bucket}`,
    })),
    {
      key: 'avoidable',
      label: 'Avoidable',
      value: avoidable,
      share: avoidable === undefined || total === undefined ? null : shareOf(avoidable, total),
      className: 'total-avoidable',
    },
  ];
  return (
    <ul className="totals" aria-busy={counts === undefined}>
      {cards.map((card) => (
        <li key={card.key} className={`total ${card.className}`}>
          <span className="label">{card.label}</span>
          <span className="value" data-testid={`total-${card.key}`}>
            {card.value === undefined ? '–' : formatCount(card.value)}
          </span>
          <span className="share">
            {card.key === 'requests' ? 'in range' : `${formatShare(card.share)} of requests`}
          </span>
        </li>
      ))}
    </ul>
  );
}
