import { useQuery } from '@tanstack/react-query';
import { BUCKET_LABEL, BUCKETS } from '../../buckets.ts';
import { Choice } from '../../components/Choice.tsx';
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
  // A name the URL holds stays choosable when the range no longer has it; '' is "all".
  const options = (value: string | undefined, known: string[]) =>
    value !== undefined && !known.includes(value) ? ['', value, ...known] : ['', ...known];
  const orAll = (name: string) => name || 'all';
  return (
    <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter events">
      <label>
        Server
        <Choice
          value={filters.server ?? ''}
          options={options(filters.server, servers)}
          label={orAll}
          onChange={(server) => onChange({ server })}
        />
      </label>
      <label>
        Client
        <Choice
          value={filters.client ?? ''}
          options={options(filters.client, clients)}
          label={orAll}
          onChange={(client) => onChange({ client })}
        />
      </label>
      <label>
        Bucket
        <Choice
          value={filters.bucket ?? ''}
          options={['', ...BUCKETS]}
          label={(bucket) => (bucket === '' ? 'all' : BUCKET_LABEL[bucket])}
          onChange={(bucket) => onChange({ bucket })}
        />
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
