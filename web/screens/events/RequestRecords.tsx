import type { JoinedRecord } from '../../prepare/joined-records.ts';
import { RecordPair } from './RecordPair.tsx';
import './events.css';

/**
 * The two records behind a request's row in a list (the events list, a server's failures): a toggle on the row, and
 * the pair it opens. The parent holds whether it is open, as the two sit apart in its layout.
 */

interface RecordsToggleProps {
  expanded: boolean;
  onToggle: () => void;
  /** The id of the RequestRecords it opens. */
  controls: string;
}

export function RecordsToggle({ expanded, onToggle, controls }: RecordsToggleProps) {
  return (
    <button
      type="button"
      className="quiet records-toggle"
      aria-expanded={expanded}
      aria-controls={controls}
      title="This request was logged by its client and by a proxy: show both records"
      onClick={onToggle}
    >
      <span aria-hidden="true">{expanded ? '▾' : '▸'}</span> 2 records
    </button>
  );
}

interface RequestRecordsProps {
  id: string;
  records: [JoinedRecord, JoinedRecord];
  hrefOf: (record: JoinedRecord) => string;
  onFollow?: () => void;
}

export function RequestRecords({ id, records, hrefOf, onFollow }: RequestRecordsProps) {
  return (
    <section
      className="request-records"
      id={id}
      aria-label="Both records of this request"
      data-testid="request-records"
    >
      <RecordPair records={records} current={null} hrefOf={hrefOf} onFollow={onFollow} />
    </section>
  );
}
