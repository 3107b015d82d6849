import { Hono } from 'hono';
import { z } from 'zod';
import { parseDiscovery } from '../../shared/discovery.ts';
import { overridesSchema, toCodeOverrides } from '../../shared/overrides.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { limitBody } from '../middleware/body-limit.ts';
import { readServerConfig, setDiscovery, setOverrides } from '../services/server-config.ts';
import { validate } from '../validate.ts';

const serverParam = z.object({ server: z.string().min(1).max(200) });

/** A discovery document or an override list is small; anything near this size is a mistake or an attack. */
const CONFIG_BODY_BYTES = 1024 * 1024;
const smallBody = limitBody(() => CONFIG_BODY_BYTES, 'Send the document itself; agent cards are a few kilobytes.');

export const serverRoutes = new Hono<Env>()
  .get('/servers/:server/discovery', validate('param', serverParam), async (c) => {
    const config = await requireServer(c.var.deps.store, c.req.valid('param').server);
    return c.json({ server: config.server, discovery: config.discovery, source: config.discoverySource });
  })
  .put(
    '/servers/:server/discovery',
    smallBody,
    validate('param', serverParam),
    validate('json', z.unknown()),
    async (c) => {
      const parsed = parseDiscovery(c.req.valid('json'));
      if (!parsed.ok) throw new ApiError('invalid_discovery', parsed.error.message, { fix: parsed.error.fix });
      const { store, clock } = c.var.deps;
      const change = await setDiscovery({
        ctx: { db: store, now: clock() },
        input: { server: c.req.valid('param').server, document: parsed.document, source: c.req.valid('json') },
      });
      return c.json({
        server: change.server,
        discovery: change.discovery,
        source: change.discoverySource,
        reclassified: change.reclassified,
      });
    },
  )
  .get('/servers/:server/overrides', validate('param', serverParam), async (c) => {
    const config = await requireServer(c.var.deps.store, c.req.valid('param').server);
    return c.json({ server: config.server, overrides: config.overrides });
  })
  .put(
    '/servers/:server/overrides',
    smallBody,
    validate('param', serverParam),
    validate('json', overridesSchema),
    async (c) => {
      const { store, clock } = c.var.deps;
      const overrides = toCodeOverrides(c.req.valid('json'));
      const change = await setOverrides({
        ctx: { db: store, now: clock() },
        input: { server: c.req.valid('param').server, overrides },
      });
      return c.json({ server: change.server, overrides: change.overrides, reclassified: change.reclassified });
    },
  );

async function requireServer(store: Env['Variables']['deps']['store'], server: string) {
  const config = await readServerConfig(store, server);
  if (config === null) {
    throw new ApiError('not_found', 'no traffic or configuration is known for that server', {
      fix: 'Check the server name (GET /api/v1/summary lists the servers seen), or PUT its discovery document.',
    });
  }
  return config;
}
