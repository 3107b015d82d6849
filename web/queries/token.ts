import { api } from '../api.ts';
import { unwrap } from '../query-client.ts';

/**
 * Tries `token` before it is kept, on the cheapest call that needs one (a one-second summary, read from the
 * rollups); a refused token throws an `ApiFailure`.
 */
export async function checkToken(token: string): Promise<void> {
  const to = Date.now();
  const query = { from: String(to - 1000), to: String(to) };
  await unwrap(await api.summary.$get({ query }, { headers: { authorization: `Bearer ${token}` } }));
}
