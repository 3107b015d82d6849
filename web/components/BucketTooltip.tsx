import { BUCKET_LABEL, type Bucket } from '../buckets.ts';
import { formatCount, formatDay, formatHourMinute } from '../format.ts';
import type { BucketRow } from '../prepare/bucket-series.ts';

/** The exact numbers of one step: every drawn bucket (zeros included), the total and the avoidable requests. */
export function BucketTooltip({ row, buckets }: { row: BucketRow | undefined; buckets: readonly Bucket[] }) {
  if (row === undefined) return null;
  return (
    <div className="chart-tooltip">
      <p className="tooltip-title">
        {formatDay(row.start)} {formatHourMinute(row.start)}–{formatHourMinute(row.end)} UTC
      </p>
      <table>
        <tbody>
          {[...buckets].reverse().map((bucket) => (
            <tr key={bucket}>
              <th scope="row">
                <span className={`swatch swatch-${bucket}`} /> {BUCKET_LABEL[bucket]}
              </th>
              <td>{formatCount(row[bucket])}</td>
            </tr>
          ))}
          <tr className="tooltip-total">
            <th scope="row">Requests</th>
            <td>{formatCount(row.requests)}</td>
          </tr>
          <tr>
            <th scope="row">Avoidable</th>
            <td>{formatCount(row.avoidable)}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

export function BucketLegend({ buckets }: { buckets: readonly Bucket[] }) {
  return (
    <ul className="legend">
      {buckets.map((bucket) => (
        <li key={bucket}>
          <span className={`swatch swatch-${bucket}`} /> {BUCKET_LABEL[bucket]}
        </li>
      ))}
    </ul>
  );
}
