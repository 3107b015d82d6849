import { Link } from '../../components/Link.tsx';
import {
  answerDisagreement,
  compareRows,
  countedLine,
  type JoinedRecord,
  openLabel,
  orderPair,
  recordLabel,
} from '../../prepare/joined-records.ts';
import { ProxyFacts } from './ProxyFacts.tsx';

interface RecordPairProps {
  /** The two records of one request, in any order: the client's is shown first. */
  records: [JoinedRecord, JoinedRecord];
  /** The record open on the screen above, which needs no link to itself; null where neither is. */
  current: string | null;
  /** The address that opens a record on this screen, filters kept. */
  hrefOf: (record: JoinedRecord) => string;
  onFollow?: () => void;
}

/**
 * Both records of one request side by side: which one counts, where they disagree, a link to open each, and what
 * only the proxy saw. The event view shows it under the open record; a list shows it under a request's row.
 */
export function RecordPair({ records, current, hrefOf, onFollow }: RecordPairProps) {
  const pair = orderPair<JoinedRecord>(records[0], records[1]);
  const disagreement = answerDisagreement(pair);
  const proxy = pair.find((record) => record.source === 'proxy');
  return (
    <>
      <p className="joined-note" data-testid="counted-line">
        {countedLine(pair[0], pair[1])}
      </p>
      {disagreement === null ? null : <p className="muted small">{disagreement}</p>}
      <div className="table-wrap">
        <table className="table compare" data-testid="record-pair">
          <colgroup>
            <col className="compare-terms" />
            <col />
            <col />
          </colgroup>
          <thead>
            <tr>
              <td />
              {pair.map((record) => (
                <th
                  key={record.id}
                  scope="col"
                  className="record-head"
                  aria-current={record.id === current ? 'true' : undefined}
                >
                  {recordLabel(record.source)}
                  <span className="block small">
                    {record.id === current ? (
                      <span className="muted">shown above</span>
                    ) : (
                      <Link href={hrefOf(record)} onClick={onFollow}>
                        {openLabel(record.source)}
                      </Link>
                    )}
                  </span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {compareRows(pair).map((row) => (
              <tr key={row.term}>
                <th scope="row" className="row-term">
                  {row.term}
                </th>
                <td>{row.values[0]}</td>
                <td>{row.values[1]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {proxy === undefined ? null : <ProxyFacts record={proxy} />}
    </>
  );
}
