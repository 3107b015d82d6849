import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import type { JoinedRecord } from '../../prepare/joined-records.ts';
import { type EventView, eventQuery } from '../../queries/events.ts';
import { RecordPair } from './RecordPair.tsx';

interface JoinedRecordsProps {
  /** The open record; its `partner` is the other record of the same request. */
  open: JoinedRecord & Pick<EventView, 'server'> & { partner: string };
  /** The address that opens a record on this screen, filters kept. */
  hrefOf: (record: JoinedRecord) => string;
  onFollow: () => void;
}

/** Both records of one request, client's first: which one counts, the two side by side, and what the proxy saw. */
export function JoinedRecords({ open, hrefOf, onFollow }: JoinedRecordsProps) {
  // The partner is rarely far from the record naming it, nor of another server: these find a packed partner's hour.
  const query = useQuery(eventQuery(open.partner, Date.parse(open.ts), open.server));
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
        <RecordPair records={[open, partner]} current={open.id} hrefOf={hrefOf} onFollow={onFollow} />
      )}
    </section>
  );
}
