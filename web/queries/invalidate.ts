import type { QueryClient } from '@tanstack/react-query';
import { clientKeys } from './clients.ts';
import { contextGapKeys } from './context-gap.ts';
import { denialKeys } from './denials.ts';
import { eventKeys } from './events.ts';
import { identityKeys } from './identities.ts';
import { serverKeys } from './servers.ts';
import { spanKeys } from './span.ts';
import { stormKeys } from './storms.ts';
import { summaryKeys } from './summary.ts';
import { timeseriesKeys } from './timeseries.ts';

/** Every resource whose numbers a reclassification can change: buckets, kinds, gate verdicts, storms. */
const RECLASSIFIED = [
  summaryKeys.all,
  timeseriesKeys.all,
  serverKeys.all,
  stormKeys.all,
  identityKeys.all,
  eventKeys.all,
  clientKeys.all,
  contextGapKeys.all,
  denialKeys.all,
];

export function invalidateAfterReclassify(client: QueryClient): Promise<unknown> {
  return Promise.all(RECLASSIFIED.map((queryKey) => client.invalidateQueries({ queryKey })));
}

/** New events change every count, and where the stored events lie: after an upload, each is loaded again. */
export function invalidateAfterIngest(client: QueryClient): Promise<unknown> {
  return Promise.all([invalidateAfterReclassify(client), client.invalidateQueries({ queryKey: spanKeys.all })]);
}
