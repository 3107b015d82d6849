import { formatCount, formatShare } from '../../format.ts';
import { type Bit, type BitCounts, bitShares, profileRows } from '../../prepare/actionability.ts';

/** One bit's share of a view's failures, with the count on hover. */
export function BitShare({ counts, bit }: { counts: BitCounts; bit: Bit }) {
  const share = bitShares(counts)[bit];
  return (
    <span className={share === 0 ? 'muted' : undefined} title={`${formatCount(counts[bit])} of ${counts.failures}`}>
      {formatShare(share)}
    </span>
  );
}

/** The profiles of a view, most frequent first: `110000 × 8 (D P)`. */
export function ProfileList({ counts }: { counts: BitCounts }) {
  return (
    <ul className="profile-list" data-testid="profile-list">
      {profileRows(counts).map((row) => (
        <li key={row.profile}>
          <code>{row.profile}</code> × {formatCount(row.failures)} <span className="muted">({row.bits})</span>
        </li>
      ))}
    </ul>
  );
}
