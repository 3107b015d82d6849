import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/ErrorNote.tsx';
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
import { eventQuery } from '../../queries/events.ts';
import { ProxyFacts } from './ProxyFacts.tsx';

interface JoinedRecordsProps {
  /** The open record; its `partner` is the other record of the same request. */
  open: JoinedRecord & { partner: string };
  /** The address that opens a record on this screen, filters kept. */
  hrefOf: (record: JoinedRecord) => string;
  onFollow: () => void;
}

/** Both records of one request, client's first: which one counts, the two side by side, and what the proxy saw. */
export function JoinedRecords({ open, hrefOf, onFollow }: JoinedRecordsProps) {
  const query = useQuery(eventQuery(open.partner));
  const partner = query.data;
  return (
    <section className="joined" aria-label="Both records of this request" data-testid="joined-records">
      <h3>Both records of this request</h3>
      {partner === undefined ? (
        query.isError ? (
          <ErrorNote error={query.error} what="the other record" onRetry={() => query.refetch()} />
        ) : (
          <div className="skeleton" style={{ height: 160 }} aria-busy="true" />
        )
      ) : (
        <Pair open={open} partner={partner} hrefOf={hrefOf} onFollow={onFollow} />
      )}
    </section>
  );
}

function Pair({ open, partner, hrefOf, onFollow }: JoinedRecordsProps & { partner: JoinedRecord }) {
  const pair = orderPair<JoinedRecord>(open, partner);
  const disagreement = answerDisagreement(pair);
  const proxy = pair.find((record) => record.source === 'proxy');
  return (
    <>
      <p className="joined-note" data-testid="counted-line">
        {countedLine(open, partner)}
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
                  aria-current={record.id === open.id ? 'true' : undefined}
                >
                  {recordLabel(record.source)}
                  <span className="block small">
                    {record.id === open.id ? (
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
