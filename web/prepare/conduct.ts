import { counted } from '../format.ts';
import type { ClientConduct } from '../queries/clients.ts';

type Counted = Pick<
  ClientConduct,
  | 'probedWithoutDiscovery'
  | 'retriedAfterRefusal'
  | 'retriedBeforeRetryAfter'
  | 'retriedPastBudget'
  | 'identicalAfterAmbiguous'
>;

/** Each finding in words, its count agreeing with its noun: never "re-sent 1 requests". */
const FINDINGS: readonly [keyof Counted, (n: number) => string][] = [
  ['retriedAfterRefusal', (n) => `re-sent ${counted(n, 'request')} the server had already refused`],
  ['retriedPastBudget', (n) => `retried ${counted(n, 'time')} past the budget of 3 after transient failures`],
  ['retriedBeforeRetryAfter', (n) => `sent ${counted(n, 'request')} before Retry-After had elapsed`],
  ['identicalAfterAmbiguous', (n) => `repeated ${counted(n, 'request')} unchanged after an ambiguous answer`],
  [
    'probedWithoutDiscovery',
    (n) => `probed undeclared paths ${counted(n, 'time')} without reading the discovery document`,
  ],
];

/** What a client did that a correct client would not have, in plain words, the most frequent first. */
export function conductFindings(client: Counted): string[] {
  return FINDINGS.filter(([field]) => client[field] > 0)
    .sort(([a], [b]) => client[b] - client[a])
    .map(([field, text]) => text(client[field]));
}

export function filterClients<T extends Pick<ClientConduct, 'client'>>(clients: readonly T[], q: string): T[] {
  const needle = q.trim().toLowerCase();
  return needle === '' ? [...clients] : clients.filter((c) => c.client.toLowerCase().includes(needle));
}
