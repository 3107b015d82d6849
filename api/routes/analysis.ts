import { Hono } from 'hono';
import { z } from 'zod';
import { STORM_ORDERS } from '../../shared/analysis/storm-model.ts';
import { STEP_NAMES, type StepName } from '../../shared/analysis/time-buckets.ts';
import type { AppDeps, Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { downloadable, formatParam } from '../export.ts';
import { rangeParams } from '../params.ts';
import { actionabilityIn } from '../services/analysis/actionability.ts';
import { denialsIn } from '../services/analysis/denials.ts';
import { identitiesIn, identitiesOverAlarm, identityIn } from '../services/analysis/identity-views.ts';
import { serverDetail } from '../services/analysis/server-detail.ts';
import { stormById } from '../services/analysis/storm-ids.ts';
import { clientsIn, contextGapIn, serversIn, stormsIn, timeseriesIn } from '../services/analysis/traffic.ts';
import { analysisWindow } from '../services/analysis/window.ts';
import {
  CLIENTS_TABLE,
  IDENTITIES_TABLE,
  SERVERS_TABLE,
  STORM_ATTEMPTS_TABLE,
  STORMS_TABLE,
} from '../services/export-tables.ts';
import { validate } from '../validate.ts';

const rangeQuery = rangeParams.extend(formatParam.shape);
const identityListQuery = rangeQuery.extend({
  limit: z.coerce.number().int().min(1).max(50).default(20),
  /** `alarmed`: the identities over the re-presentation alarm, the densest first, instead of the most sent. */
  only: z.enum(['alarmed']).optional(),
});
const timeseriesQuery = rangeParams.extend({
  step: z.enum(Object.keys(STEP_NAMES) as [StepName, ...StepName[]]).optional(),
});
const stormListQuery = rangeQuery.extend({
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  sort: z.enum(STORM_ORDERS).default('first'),
});

// The counts are kept per server, not per client.
const actionabilityQuery = rangeParams.omit({ client: true });

type RangeQuery = z.output<typeof rangeQuery>;

/**
 * What each table route answers, for its JSON and its download alike (api/export.ts): one read per table. A download
 * lists every storm and client of the range; the identity ranking stays the top `limit` it is.
 */
type StormListQuery = z.output<typeof stormListQuery>;
type IdentityListQuery = z.output<typeof identityListQuery>;

const storms = async (query: StormListQuery, deps: AppDeps, limit = query.limit) => {
  const now = deps.clock();
  return stormsIn(deps.store, await analysisWindow(deps.store, query, now), { order: query.sort, limit, now });
};
const stormWithAttempts = async (id: string, { store }: AppDeps) => {
  const storm = await stormById(store, id);
  if (storm === null) {
    throw new ApiError('not_found', 'no storm with that id', {
      fix: 'Take a storm id from GET /api/v1/storms; ids stay valid while the events behind them are stored.',
    });
  }
  return storm;
};
const identities = async (query: IdentityListQuery, deps: AppDeps) => {
  const scope = await analysisWindow(deps.store, query, deps.clock());
  if (query.only === 'alarmed') return identitiesOverAlarm(deps.store, scope, query.limit);
  return identitiesIn(deps.store, scope, query.limit);
};
const clients = async (query: RangeQuery, deps: AppDeps) =>
  clientsIn(deps.store, await analysisWindow(deps.store, query, deps.clock()));
const servers = async (query: RangeQuery, deps: AppDeps) =>
  serversIn(deps.store, await analysisWindow(deps.store, query, deps.clock()));

const stormId = z.object({ id: z.string().max(2000) });

export const analysisRoutes = new Hono<Env>()
  .get(
    '/storms',
    validate('query', stormListQuery),
    downloadable(
      STORMS_TABLE,
      async (query: StormListQuery, deps) => (await storms(query, deps, Number.MAX_SAFE_INTEGER)).storms,
    ),
    async (c) => c.json(await storms(c.req.valid('query'), c.var.deps)),
  )
  .get(
    '/storms/:id',
    validate('param', stormId),
    validate('query', formatParam),
    downloadable(
      STORM_ATTEMPTS_TABLE,
      async (_query, deps, { id = '' }) => (await stormWithAttempts(id, deps)).timeline,
    ),
    async (c) => c.json(await stormWithAttempts(c.req.valid('param').id, c.var.deps)),
  )
  .get(
    '/identities',
    validate('query', identityListQuery),
    downloadable(
      IDENTITIES_TABLE,
      async (query: IdentityListQuery, deps) => (await identities(query, deps)).identities,
    ),
    async (c) => c.json(await identities(c.req.valid('query'), c.var.deps)),
  )
  .get(
    '/identities/:identity',
    validate('param', z.object({ identity: z.string().max(300) })),
    validate('query', rangeParams),
    async (c) => {
      const scope = await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock());
      const identity = await identityIn(c.var.deps.store, scope, c.req.valid('param').identity);
      if (identity === null) {
        throw new ApiError('not_found', 'that identity was not sent in this range', {
          fix: 'Widen the range (from, to) or take an identity from GET /api/v1/identities.',
        });
      }
      return c.json(identity);
    },
  )
  .get('/context-gap', validate('query', rangeParams), async (c) => {
    const servers = await contextGapIn(
      c.var.deps.store,
      await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock()),
    );
    return c.json({ servers });
  })
  .get('/denials', validate('query', rangeParams), async (c) =>
    c.json(
      await denialsIn(
        c.var.deps.store,
        await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock()),
      ),
    ),
  )
  .get('/clients', validate('query', rangeQuery), downloadable(CLIENTS_TABLE, clients), async (c) =>
    c.json({ clients: await clients(c.req.valid('query'), c.var.deps) }),
  )
  .get('/servers', validate('query', rangeQuery), downloadable(SERVERS_TABLE, servers), async (c) =>
    c.json({ servers: await servers(c.req.valid('query'), c.var.deps) }),
  )
  .get(
    '/servers/:server',
    validate('param', z.object({ server: z.string().min(1).max(200) })),
    validate('query', rangeParams),
    async (c) => {
      const scope = {
        ...(await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock())),
        server: c.req.valid('param').server,
      };
      const detail = await serverDetail(c.var.deps.store, scope, c.var.deps.clock());
      if (detail === null) {
        throw new ApiError('not_found', 'no traffic or configuration is known for that server', {
          fix: 'Check the name against GET /api/v1/servers.',
        });
      }
      return c.json(detail);
    },
  )
  .get('/actionability', validate('query', actionabilityQuery), async (c) => {
    const scope = await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock());
    return c.json(await actionabilityIn(c.var.deps.store, scope));
  })
  .get('/timeseries', validate('query', timeseriesQuery), async (c) => {
    const query = c.req.valid('query');
    const scope = await analysisWindow(c.var.deps.store, query, c.var.deps.clock());
    return c.json(await timeseriesIn(c.var.deps.store, scope, query.step));
  });
