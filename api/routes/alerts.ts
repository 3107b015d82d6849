import { Hono } from 'hono';
import { z } from 'zod';
import { MAX_PREVIEW_MS, ruleInputSchema } from '../../shared/alerts/rule.ts';
import { DAY_MS } from '../../shared/analysis/time-buckets.ts';
import type { Env } from '../env.ts';
import { ApiError } from '../errors.ts';
import { limitBody } from '../middleware/body-limit.ts';
import { epochMs, instant } from '../params.ts';
import { previewRule } from '../services/alerts/preview.ts';
import { createRule, getRule, redactRule, removeRule, updateRule } from '../services/alerts/rules.ts';
import { alertHistory, alertInstances, deliveryLog, rulesWithState } from '../services/alerts/views.ts';
import { validate } from '../validate.ts';

const RULE_BODY_BYTES = 64 * 1024;
const smallBody = limitBody(() => RULE_BODY_BYTES, 'A rule is a few hundred bytes; send only the rule.');
const idParam = z.object({ id: z.string().min(1).max(64) });

const previewBody = z.object({
  rule: ruleInputSchema,
  from: z.union([epochMs, instant]).optional(),
  to: z.union([epochMs, instant]).optional(),
});

const ruleNotFound = () =>
  new ApiError('not_found', 'no alert rule has that id', {
    fix: 'Take an id from GET /api/v1/alerts/rules; a deleted rule is gone (its history stays).',
  });

export const alertRoutes = new Hono<Env>()
  .get('/alerts/rules', async (c) => c.json({ rules: await rulesWithState(c.var.deps.store) }))
  .post('/alerts/rules', smallBody, validate('json', ruleInputSchema), async (c) => {
    const { store, clock, config } = c.var.deps;
    const rule = await createRule({
      ctx: { db: store, now: clock() },
      input: { rule: c.req.valid('json'), allowedTargets: config.allowedTargets },
    });
    return c.json({ rule: redactRule(rule) }, 201);
  })
  .post('/alerts/rules/preview', smallBody, validate('json', previewBody), async (c) => {
    const body = c.req.valid('json');
    const to = body.to ?? c.var.deps.clock();
    const from = body.from ?? to - DAY_MS;
    if (from >= to || to - from > MAX_PREVIEW_MS) {
      throw new ApiError('invalid_request', 'the preview range must be non-empty and at most 7 days', {
        field: 'from',
        fix: 'Send "from" before "to", at most 7 days apart (default: the last 24 hours).',
      });
    }
    return c.json(await previewRule(c.var.deps.store, body.rule, from, to));
  })
  .get('/alerts/rules/:id', validate('param', idParam), async (c) => {
    const rule = await getRule(c.var.deps.store, c.req.valid('param').id);
    if (rule === null) throw ruleNotFound();
    return c.json({ rule: redactRule(rule) });
  })
  .put('/alerts/rules/:id', smallBody, validate('param', idParam), validate('json', ruleInputSchema), async (c) => {
    const { store, clock, config } = c.var.deps;
    const rule = await updateRule({
      ctx: { db: store, now: clock() },
      input: { id: c.req.valid('param').id, rule: c.req.valid('json'), allowedTargets: config.allowedTargets },
    });
    if (rule === null) throw ruleNotFound();
    return c.json({ rule: redactRule(rule) });
  })
  .delete('/alerts/rules/:id', validate('param', idParam), async (c) => {
    const { store, clock } = c.var.deps;
    if (!(await removeRule({ ctx: { db: store, now: clock() }, input: c.req.valid('param') }))) throw ruleNotFound();
    return c.json({ deleted: true });
  })
  .get(
    '/alerts',
    validate(
      'query',
      z.object({ server: z.string().min(1).max(200).optional(), resolved: z.enum(['0', '1']).optional() }),
    ),
    async (c) => {
      const { server, resolved } = c.req.valid('query');
      const alerts = await alertInstances(c.var.deps.store, { server, includeResolved: resolved === '1' });
      return c.json({ alerts });
    },
  )
  .get(
    '/alerts/history',
    validate(
      'query',
      z.object({
        rule: z.string().min(1).max(64).optional(),
        server: z.string().min(1).max(200).optional(),
        before: z.coerce.number().int().min(1).optional(),
        limit: z.coerce.number().int().min(1).max(500).default(100),
      }),
    ),
    async (c) => {
      const { rule, ...filter } = c.req.valid('query');
      return c.json(await alertHistory(c.var.deps.store, { ...filter, ruleId: rule }));
    },
  )
  .get(
    '/alerts/deliveries',
    validate(
      'query',
      z.object({
        rule: z.string().min(1).max(64).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      }),
    ),
    async (c) => {
      const { rule, limit } = c.req.valid('query');
      return c.json({ deliveries: await deliveryLog(c.var.deps.store, { ruleId: rule, limit }) });
    },
  );
