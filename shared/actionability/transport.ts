import type { LensEvent } from '../event.ts';
import { type Reading, ReadingBuilder } from './profile.ts';

/**
 * Statuses whose meaning selects a coarse policy by itself: the ones the classifier's HTTP rules decide without a
 * discovery document (request repair, 405, 429, 5xx). A 404 is left out: without the document it says nothing.
 */
const POLICY = new Set([400, 401, 403, 405, 406, 409, 413, 415, 429]);
/** Statuses that name a cause: authentication, permission, method, media type, size, rate, upstream. */
const CAUSE = new Set([401, 403, 405, 406, 413, 415, 429, 502, 504]);

/**
 * The labelled "with transport" view: the control view plus the HTTP status and `Retry-After`. The paper keeps
 * transport outside its boundary; an operator has it, and a client reads it too. A field of the frame keeps the
 * evidence of a bit both earn.
 */
export function transportReading(event: LensEvent, control: Reading): Reading {
  const b = new ReadingBuilder(control);
  const status = event.http?.status;
  if (status !== undefined && status >= 400) {
    b.earn('D', 'http.status');
    if (POLICY.has(status) || (status >= 500 && status <= 599)) b.earn('P', 'http.status');
    if (CAUSE.has(status)) b.earn('C', 'http.status');
  }
  if (event.http?.retryAfter !== undefined) b.earn('R', 'http.retryAfter');
  return b.done();
}
