import { hc } from 'hono/client';
import type { AppType } from '../api/app.ts';
import { authHeaders, tokenRefused } from './token.ts';

/** Every call goes through here: a 401 says the server wants a token, and which one it refused. */
async function fetchAsked(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status === 401) tokenRefused(new Headers(init?.headers).get('authorization'));
  return response;
}

/** The one typed client of the API; routes and their answers are checked against the server's types. */
export const api = hc<AppType>('/api/v1', { headers: authHeaders, fetch: fetchAsked });
