import { Hono } from 'hono';
import { z } from 'zod';
import { STORM_ORDERS } from '../../shared/analysis/storms.ts';
import { STEP_NAMES, type StepName } from '../../shared/analysis/time-buckets.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { rangeParams } from '../params.ts';
import { identitiesIn, identitiesOverAlarm, identityIn } from '../services/analysis/identity-views.ts';
import { serverDetail } from '../services/analysis/server-detail.ts';
import { stormById } from '../services/analysis/storm-ids.ts';
import { clientsIn, contextGapIn, serversIn, stormsIn, timeseriesIn } from '../services/analysis/traffic.ts';
import { analysisWindow } from '../services/analysis/window.ts';
import { validate } from '../validate.ts';

const identityListQuery = rangeParams.extend({
  limit: z.coerce.number().int().min(1).max(50).default(20),
  /** `alarmed`: the identities over the re-presentation alarm, the densest first, instead of the most sent. */
  only: z.enum(['alarmed']).optional(),
});
const timeseriesQuery = rangeParams.extend({
  step: z.enum(Object.keys(STEP_NAMES) as [StepName, ...StepName[]]).optional(),
});
const stormListQuery = rangeParams.extend({
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  sort: z.enum(STORM_ORDERS).default('first'),
});

export const analysisRoutes = new Hono<Env>()
  .get('/storms', validate('query', stormListQuery), async (c) => {
    const query = c.req.valid('query');
    const now = c.var.deps.clock();
    return c.json(
      await stormsIn(c.var.deps.store, await analysisWindow(c.var.deps.store, query, now), {
        order: query.sort,
        limit: query.limit,
        now,
      }),
    );
  })
  .get('/storms/:id', validate('param', z.object({ id: z.string().max(2000) })), async (c) => {
    const storm = await stormById(c.var.deps.store, c.req.valid('param').id);
    if (storm === null) {
      throw new ApiError('not_found', 'no storm with that id', {
        fix: 'Take a storm id from GET /api/v1/storms; ids stay valid while the events behind them are stored.',
      });
    }
    return c.json(storm);
  })
  .get('/identities', validate('query', identityListQuery), async (c) => {
    const query = c.req.valid('query');
    const scope = await analysisWindow(c.var.deps.store, query, c.var.deps.clock());
    if (query.only === 'alarmed') return c.json(await identitiesOverAlarm(c.var.deps.store, scope, query.limit));
    return c.json(await identitiesIn(c.var.deps.store, scope, query.limit));
  })
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
  .get('/clients', validate('query', rangeParams), async (c) => {
    const clients = await clientsIn(
      c.var.deps.store,
      await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock()),
    );
    return c.json({ clients });
  })
  .get('/servers', validate('query', rangeParams), async (c) => {
    const servers = await serversIn(
      c.var.deps.store,
      await analysisWindow(c.var.deps.store, c.req.valid('query'), c.var.deps.clock()),
    );
    return c.json({ servers });
  })
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
  .get('/timeseries', validate('query', timeseriesQuery), async (c) => {
    const query = c.req.valid('query');
    const scope = await analysisWindow(c.var.deps.store, query, c.var.deps.clock());
    return c.json(await timeseriesIn(c.var.deps.store, scope, query.step));
  });
