import { queryOptions } from '@tanstack/react-query';
import { api } from '../api.ts';
import { readSpan } from '../prepare/span.ts';
import { unwrap } from '../query-client.ts';

export const spanKeys = {
  all: ['span'] as const,
};

/** When the stored events happened, whatever the screen's range: only ingest and retention move it. */
export function storedSpanQuery() {
  return queryOptions({
    queryKey: spanKeys.all,
    queryFn: async () => readSpan(await unwrap(await api.span.$get())),
  });
}
