import { Hono } from 'hono';
import { z } from 'zod';
import { BUCKETS } from '../../shared/classify/types.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { downloadable, formatParam } from '../export.ts';
import { instant, rangeParams } from '../params.ts';
import { eventWithCall } from '../services/analysis/call-rounds.ts';
import { allEvents, decodeCursor, eventPage, LISTED_RECORDS } from '../services/events.ts';
import { EVENTS_TABLE } from '../services/export-tables.ts';
import { rangeSummary } from '../services/summary.ts';
import { validate } from '../validate.ts';

const eventsQuery = rangeParams.extend(formatParam.shape).extend({
  bucket: z.enum(BUCKETS).optional(),
  kind: z.string().min(1).max(64).optional(),
  /** `true`: failures only (any bucket but ok). */
  failed: z
    .enum(['true'])
    .transform(() => true)
    .optional(),
  /** A control-view actionability profile (`110000`): the failures that have it. */
  profile: z
    .string()
    .regex(/^[01]{6}$/, 'six bits, D P C T E R, e.g. 110000')
    .transform((text) => Number.parseInt(text, 2))
    .optional(),
  /** `failure`: the hidden failures (a success whose text says it failed); `throttle`: the hidden throttles. */
  hidden: z.enum(['failure', 'throttle']).optional().meta({
    description:
      'failure: only successes whose text says the call failed (hidden failures); throttle: only those whose text says the caller is rate limited',
  }),
  records: z.enum(LISTED_RECORDS).default('counted').meta({
    description:
      'counted: a row per request, the record it is counted by with its other record behind it; all: every stored record, both of a request its client and a proxy logged',
  }),
  cursor: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
type EventsQuery = z.output<typeof eventsQuery>;

/**
 * Where an event is, as the list gives it: an event older than the hot window is packed in a block of its server's
 * hour, which its id alone does not find without reading many blocks.
 */
const eventHints = z.object({
  ts: instant.optional().meta({ description: "the event's time (ISO 8601 or epoch ms): finds an older event at once" }),
  server: z.string().min(1).max(200).optional().meta({ description: "the event's server" }),
});

/** The cursor as this server issued it; a cursor it never issued is refused rather than read from the newest. */
function issuedCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  if (decodeCursor(cursor) === null) {
    throw new ApiError('invalid_request', '"cursor" is not a cursor this server issued', {
      field: 'cursor',
      fix: 'Pass the nextCursor of a previous page unchanged, or leave cursor out to start from the newest.',
    });
  }
  return cursor;
}

export const eventsRoutes = new Hono<Env>()
  .get(
    '/events',
    validate('query', eventsQuery),
    // A download is every matching event, not a page: `limit` sizes the JSON answer's pages only.
    downloadable(
      EVENTS_TABLE,
      ({ cursor, limit: _page, format: _format, profile, ...filter }: EventsQuery, { store }) =>
        allEvents(store, { ...filter, controlProfile: profile }, issuedCursor(cursor)),
    ),
    async (c) => {
      const { cursor, limit, format: _json, profile, ...filter } = c.req.valid('query');
      return c.json(
        await eventPage(c.var.deps.store, { ...filter, controlProfile: profile }, issuedCursor(cursor), limit),
      );
    },
  )
  .get(
    '/events/:id',
    validate('param', z.object({ id: z.string().min(1).max(256) })),
    validate('query', eventHints),
    async (c) => c.json(await eventWithCall(c.var.deps.store, c.req.valid('param').id, c.req.valid('query'))),
  )
  .get('/summary', validate('query', rangeParams), async (c) => {
    return c.json(await rangeSummary(c.var.deps.store, c.req.valid('query')));
  });
