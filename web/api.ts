import { hc } from 'hono/client';
import type { AppType } from '../api/app.ts';
import { authHeaders } from './token.ts';

/** The one typed client of the API; routes and their answers are checked against the server's types. */
export const api = hc<AppType>('/api/v1', { headers: authHeaders });
