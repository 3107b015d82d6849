import { counted, formatCount, formatShare } from '../../format.ts';
import { type Bit, type BitCounts, bitShares, profileRows } from '../../prepare/actionability.ts';

/** One fact's share of a view's failures, with the count on hover. */
export function BitShare({ counts, bit }: { counts: BitCounts; bit: Bit }) {
  const share = bitShares(counts)[bit];
  return (
    <span
      className={share === 0 ? 'muted' : undefined}
      title={`${formatCount(counts[bit])} of ${counted(counts.failures, 'failure')}`}
    >
      {formatShare(share)}
    </span>
  );
}

/** Which facts failures gave together, the most frequent combination first: "8 failures: detected, what to do". */
export function ProfileList({ counts }: { counts: BitCounts }) {
  return (
    <ul className="profile-list" data-testid="profile-list">
      {profileRows(counts).map((row) => (
        <li key={row.profile}>
          <strong>{counted(row.failures, 'failure')}</strong>: {row.facts}
        </li>
      ))}
    </ul>
  );
}
