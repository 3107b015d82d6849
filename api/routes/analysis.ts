import { Hono } from 'hono';
import { z } from 'zod';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { rangeQuery } from '../params.ts';
import {
  clientsIn,
  contextGapIn,
  identitiesIn,
  identityIn,
  serversIn,
  stormsIn,
  timeseriesIn,
} from '../services/analysis/traffic.ts';
import { readServerConfig } from '../services/server-config.ts';
import { summarise } from '../services/summary.ts';
import { validate } from '../validate.ts';

const DAY_MS = 24 * 60 * 60_000;

/** A window defaults to the 24 hours before now: the analyses always have a range to bucket. */
function windowOf(query: z.output<typeof rangeQuery>, now: number) {
  const to = query.to ?? now;
  const from = query.from ?? to - DAY_MS;
  if (from >= to) {
    throw new ApiError('invalid_request', '"from" must be before "to"', {
      field: 'from',
      fix: 'Swap or widen the range.',
    });
  }
  return { from, to, server: query.server, client: query.client };
}

/** Storm ids carry where to find the storm again, so that a link to one keeps working. */
function stormId(storm: { id: string; client: string; server: string; firstTs: number }): string {
  return Buffer.from(JSON.stringify([storm.client, storm.server, storm.firstTs, storm.id])).toString('base64url');
}

function parseStormId(id: string): [string, string, number, string] | null {
  try {
    const value = JSON.parse(Buffer.from(id, 'base64url').toString());
    const ok =
      Array.isArray(value) &&
      value.length === 4 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      Number.isSafeInteger(value[2]) &&
      typeof value[3] === 'string';
    return ok ? (value as [string, string, number, string]) : null;
  } catch {
    return null;
  }
}

const limitQuery = rangeQuery.extend({ limit: z.coerce.number().int().min(1).max(50).default(20) });

export const analysisRoutes = new Hono<Env>()
  .get('/storms', validate('query', rangeQuery), async (c) => {
    const storms = await stormsIn(c.var.deps.store, windowOf(c.req.valid('query'), c.var.deps.clock()));
    return c.json({ storms: storms.map(({ timeline: _timeline, ...storm }) => ({ ...storm, id: stormId(storm) })) });
  })
  .get('/storms/:id', validate('param', z.object({ id: z.string().max(2000) })), async (c) => {
    const found = parseStormId(c.req.valid('param').id);
    const notFound = new ApiError('not_found', 'no storm with that id', {
      fix: 'Take a storm id from GET /api/v1/storms; ids stay valid while the events behind them are stored.',
    });
    if (found === null) throw notFound;
    const [client, server, firstTs, id] = found;
    const storms = await stormsIn(c.var.deps.store, { client, server, from: firstTs, to: c.var.deps.clock() + 1 });
    const storm = storms.find((s) => s.id === id);
    if (storm === undefined) throw notFound;
    return c.json({ ...storm, id: stormId(storm) });
  })
  .get('/identities', validate('query', limitQuery), async (c) => {
    const query = c.req.valid('query');
    const identities = await identitiesIn(c.var.deps.store, windowOf(query, c.var.deps.clock()), query.limit);
    return c.json({ identities });
  })
  .get(
    '/identities/:identity',
    validate('param', z.object({ identity: z.string().max(300) })),
    validate('query', rangeQuery),
    async (c) => {
      const scope = windowOf(c.req.valid('query'), c.var.deps.clock());
      const identity = await identityIn(c.var.deps.store, scope, c.req.valid('param').identity);
      if (identity === null) {
        throw new ApiError('not_found', 'that identity was not sent in this range', {
          fix: 'Widen the range (from, to) or take an identity from GET /api/v1/identities.',
        });
      }
      return c.json(identity);
    },
  )
  .get('/context-gap', validate('query', rangeQuery), async (c) => {
    const servers = await contextGapIn(c.var.deps.store, windowOf(c.req.valid('query'), c.var.deps.clock()));
    return c.json({ servers });
  })
  .get('/clients', validate('query', rangeQuery), async (c) => {
    const clients = await clientsIn(c.var.deps.store, windowOf(c.req.valid('query'), c.var.deps.clock()));
    return c.json({ clients });
  })
  .get('/servers', validate('query', rangeQuery), async (c) => {
    const servers = await serversIn(c.var.deps.store, windowOf(c.req.valid('query'), c.var.deps.clock()));
    return c.json({ servers });
  })
  .get(
    '/servers/:server',
    validate('param', z.object({ server: z.string().min(1).max(200) })),
    validate('query', rangeQuery),
    async (c) => {
      const { store, clock } = c.var.deps;
      const server = c.req.valid('param').server;
      const config = await readServerConfig(store, server);
      if (config === null) {
        throw new ApiError('not_found', 'no traffic or configuration is known for that server', {
          fix: 'Check the name against GET /api/v1/servers.',
        });
      }
      const scope = { ...windowOf(c.req.valid('query'), clock()), server };
      const [summary, series, storms, identities, contextGap] = await Promise.all([
        summarise(store, scope),
        timeseriesIn(store, scope),
        stormsIn(store, scope),
        identitiesIn(store, scope, 10),
        contextGapIn(store, scope),
      ]);
      return c.json({
        server,
        range: { from: scope.from, to: scope.to },
        counts: summary.overall,
        clients: summary.clients,
        series,
        storms: storms.map(({ timeline: _timeline, ...storm }) => ({ ...storm, id: stormId(storm) })),
        identities,
        contextGap: contextGap[0] ?? null,
        discovery: config.discovery,
        discoverySource: config.discoverySource,
        overrides: config.overrides,
      });
    },
  )
  .get('/timeseries', validate('query', rangeQuery), async (c) => {
    return c.json(await timeseriesIn(c.var.deps.store, windowOf(c.req.valid('query'), c.var.deps.clock())));
  });
