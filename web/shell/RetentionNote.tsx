import { useQuery } from '@tanstack/react-query';
import { formatDateTime } from '../format.ts';
import { healthQuery } from '../queries/health.ts';
import { resolveRange } from '../time-range.ts';
import { useUrl } from '../use-url.ts';

/**
 * Says what a range reaching past retention can show, instead of letting its older part read as quiet: hour counts
 * only before the events horizon, nothing before the counts horizon.
 */
export function RetentionNote() {
  const { range } = useUrl();
  const { data } = useQuery(healthQuery());
  const eventsFrom = data?.kept.eventsFrom ?? null;
  if (eventsFrom === null) return null;
  const { from } = resolveRange(range, Date.now());
  if (from >= eventsFrom) return null;
  const countsFrom = data?.kept.countsFrom ?? null;
  return (
    <p className="lag-banner" role="note" data-testid="retention-note">
      <strong>Part of this range is past retention.</strong> Events are kept from {formatDateTime(eventsFrom)}: before
      that the charts and tables show hourly counts only, and no events, storm attempts or identities.
      {countsFrom !== null && from < countsFrom && ` Nothing is kept before ${formatDateTime(countsFrom)}.`}
    </p>
  );
}
