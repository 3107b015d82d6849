import { useQuery } from '@tanstack/react-query';
import { BUCKET_LABEL, BUCKETS } from '../../buckets.ts';
import type { EventFilters } from '../../queries/events.ts';
import { summaryQuery } from '../../queries/summary.ts';
import type { Patch } from '../../url-state.ts';

interface EventFiltersBarProps {
  filters: EventFilters;
  onChange: (patch: Patch) => void;
}

/** Server, client and bucket from what the range holds; kind as text (the API matches it exactly). */
export function EventFiltersBar({ filters, onChange }: EventFiltersBarProps) {
  const summary = useQuery(summaryQuery({ range: filters.range }));
  const servers = Object.keys(summary.data?.servers ?? {}).sort();
  const clients = Object.keys(summary.data?.clients ?? {}).sort();
  const commitKind = (value: string) => {
    if (value.trim() !== (filters.kind ?? '')) onChange({ kind: value.trim() });
  };
  const option = (value: string | undefined, known: string[]) =>
    value !== undefined && !known.includes(value) ? [value, ...known] : known;
  return (
    <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter events">
      <label>
        Server
        <select value={filters.server ?? ''} onChange={(event) => onChange({ server: event.target.value })}>
          <option value="">all</option>
          {option(filters.server, servers).map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      <label>
        Client
        <select value={filters.client ?? ''} onChange={(event) => onChange({ client: event.target.value })}>
          <option value="">all</option>
          {option(filters.client, clients).map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </label>
      <label>
        Bucket
        <select value={filters.bucket ?? ''} onChange={(event) => onChange({ bucket: event.target.value })}>
          <option value="">all</option>
          {BUCKETS.map((bucket) => (
            <option key={bucket} value={bucket}>
              {BUCKET_LABEL[bucket]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Kind
        <input
          key={filters.kind ?? ''}
          defaultValue={filters.kind ?? ''}
          placeholder="e.g. not_declared"
          onBlur={(event) => commitKind(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') commitKind(event.currentTarget.value);
          }}
        />
      </label>
    </form>
  );
}
