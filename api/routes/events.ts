import { Hono } from 'hono';
import { z } from 'zod';
import { BUCKETS } from '../../shared/classify/types.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { rangeParams } from '../params.ts';
import { decodeCursor, eventById, eventPage } from '../services/events.ts';
import { summarise } from '../services/summary.ts';
import { validate } from '../validate.ts';

const eventsQuery = rangeParams.extend({
  bucket: z.enum(BUCKETS).optional(),
  kind: z.string().min(1).max(64).optional(),
  cursor: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const eventsRoutes = new Hono<Env>()
  .get('/events', validate('query', eventsQuery), async (c) => {
    const { cursor, limit, ...filter } = c.req.valid('query');
    if (cursor !== undefined && decodeCursor(cursor) === null) {
      throw new ApiError('invalid_request', '"cursor" is not a cursor this server issued', {
        field: 'cursor',
        fix: 'Pass the nextCursor of a previous page unchanged, or leave cursor out to start from the newest.',
      });
    }
    return c.json(await eventPage(c.var.deps.store, filter, cursor ?? null, limit));
  })
  .get('/events/:id', validate('param', z.object({ id: z.string().min(1).max(256) })), async (c) => {
    const event = await eventById(c.var.deps.store, c.req.valid('param').id);
    if (event === null) {
      throw new ApiError('not_found', 'no stored event has that id', {
        fix: 'Take an id from GET /api/v1/events; an event sent without an id is named h:<digest of its content>.',
      });
    }
    return c.json(event);
  })
  .get('/summary', validate('query', rangeParams), async (c) => {
    return c.json(await summarise(c.var.deps.store, c.req.valid('query')));
  });
