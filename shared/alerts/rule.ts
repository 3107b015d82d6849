import { z } from 'zod';
import { DAY_MS } from '../analysis/time-buckets.ts';
import { COMPARATORS, meets, NO_DATA } from './compare.ts';
import { GROUP_BYS, METRIC_INFO, METRICS } from './metrics.ts';

const MINUTE = 60;
const DAY = 24 * 60 * MINUTE;

/** The longest history a rule's preview replays: the dashboard's widest preset range, a week. */
export const MAX_PREVIEW_MS = 7 * DAY_MS;

export const TARGET_TYPES = ['webhook', 'slack', 'pagerduty', 'alertmanager'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** Where a `pagerduty` target without a URL sends: the Events API v2 (an EU account gives its own URL). */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

/**
 * A target as sent. Its URL is a secret (a Slack webhook's path is its token), and so is a PagerDuty routing key:
 * neither is read back, answers carry `RedactedTarget`. To keep a saved target's secrets, send its `id` without
 * them (the answer's own target shape, sent back as it is, does that); an `id` with a `url` or `routingKey`
 * replaces that one; a target without an `id` is a new one.
 */
const target = z
  .object({
    id: z.string().min(1).max(64).optional(),
    /**
     * `webhook`: our documented JSON payload; `slack`: a Slack incoming-webhook message; `pagerduty`: an Events API
     * v2 event; `alertmanager`: alerts POSTed to `{url}/api/v2/alerts`.
     */
    type: z.enum(TARGET_TYPES),
    url: z
      .string()
      .max(2000)
      .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an http:// or https:// URL')
      .optional(),
    /** A `pagerduty` target's integration key (PagerDuty's is 32 characters; a ruleset's starts with R). */
    routingKey: z
      .string()
      .max(200)
      .regex(/^[\w.+=-]+$/, 'must be the integration key: letters, digits and . _ + = - only')
      .optional(),
  })
  .refine((t) => t.routingKey === undefined || t.type === 'pagerduty', {
    path: ['routingKey'],
    message: 'only a pagerduty target takes a routing key',
  });

/** A target as stored: what the deliverer sends to. */
export interface StoredTarget {
  id: string;
  type: TargetType;
  url: string;
  /** A `pagerduty` target's integration key; a secret like the URL. */
  routingKey?: string;
}

/** A target as every API answer shows it: the receiver's host, and that a secret URL is set. */
export interface RedactedTarget {
  id: string;
  type: TargetType;
  host: string;
  secretSet: true;
}

/** A target as sent in a rule. */
export type TargetInput = z.output<typeof target>;

/**
 * A sent target's secrets: what it carries, else what the saved target of its id has; a new PagerDuty target without
 * a URL goes to PagerDuty's events URL. Undefined where neither says (the caller refuses that): a URL for every
 * type, a routing key for `pagerduty`. A saved routing key stays bound to the saved URL: sent with another URL it is
 * not kept (`keyLeftBehind`), or whoever may edit a rule could read the write-only key at an address of theirs.
 */
export function targetSecrets(
  sent: TargetInput,
  kept: StoredTarget | undefined,
): { url: string | undefined; routingKey: string | undefined; keyLeftBehind: boolean } {
  const url = sent.url ?? kept?.url ?? (sent.type === 'pagerduty' ? PAGERDUTY_EVENTS_URL : undefined);
  const keptKey = kept?.url === url ? kept?.routingKey : undefined;
  const routingKey = sent.type === 'pagerduty' ? (sent.routingKey ?? keptKey) : undefined;
  const keyLeftBehind = sent.type === 'pagerduty' && routingKey === undefined && kept?.routingKey !== undefined;
  return { url, routingKey, keyLeftBehind };
}

/** The host of a target URL (with a port that is not the scheme's default), and nothing of its path or query. */
export function targetHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

export function redactTarget(target: StoredTarget): RedactedTarget {
  return { id: target.id, type: target.type, host: targetHost(target.url), secretSet: true };
}

const seconds = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * A rule as operators write it (POST/PUT /api/v1/alerts/rules). Durations are whole seconds. Bounds keep the
 * evaluator's work predictable: windows up to a day, evaluations no more often than every 10 seconds.
 */
export const ruleInputSchema = z
  .object({
    name: z.string().trim().min(1).max(120),
    metric: z.enum(METRICS),
    scope: z
      .object({ server: z.string().min(1).max(200).optional(), client: z.string().min(1).max(200).optional() })
      .strict()
      .default({}),
    groupBy: z.enum(GROUP_BYS).default('none'),
    comparator: z.enum(COMPARATORS).default('>='),
    warning: z.number().finite().nullable().default(null),
    critical: z.number().finite().nullable().default(null),
    /** Firing ends only once the value no longer meets this (hysteresis); null: when no threshold is met. */
    resolveThreshold: z.number().finite().nullable().default(null),
    windowSeconds: seconds(MINUTE, DAY).default(15 * MINUTE),
    intervalSeconds: seconds(10, 60 * MINUTE).default(MINUTE),
    /** How long the condition must hold before the alert fires. */
    pendingSeconds: seconds(0, DAY).default(0),
    /** How long the condition must stay clear before a firing alert resolves. */
    /** Five minutes unless set: a value that bounces around its threshold then pages once, not on every crossing. */
    keepFiringForSeconds: seconds(0, DAY).default(5 * MINUTE),
    noData: z.enum(NO_DATA).default('ok'),
    enabled: z.boolean().default(true),
    targets: z.array(target).max(10).default([]),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const info = METRIC_INFO[rule.metric];
    if (info.clientScope === false && rule.scope.client !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['scope', 'client'],
        message: `${rule.metric} is kept per server, not per client: leave scope.client out`,
      });
    }
    if (!info.groupBys.includes(rule.groupBy)) {
      ctx.addIssue({
        code: 'custom',
        path: ['groupBy'],
        message: `${rule.metric} can be grouped by ${info.groupBys.join(', ')}, not ${rule.groupBy}`,
      });
    }
    if (rule.groupBy !== 'none' && rule.noData !== 'ok') {
      ctx.addIssue({
        code: 'custom',
        path: ['noData'],
        message: 'a grouped rule has no reading to miss: a group with no traffic is clear; use "ok" or group by none',
      });
    }
    if (rule.warning === null && rule.critical === null) {
      ctx.addIssue({ code: 'custom', path: ['critical'], message: 'give a warning or a critical threshold' });
    }
    for (const field of ['warning', 'critical', 'resolveThreshold'] as const) {
      const value = rule[field];
      if (value === null) continue;
      if (value < 0 || (info.unit === 'ratio' && value > 1)) {
        const range = info.unit === 'ratio' ? 'a share between 0 and 1' : 'a count of 0 or more';
        ctx.addIssue({ code: 'custom', path: [field], message: `${rule.metric} is ${range}` });
      }
    }
    if (rule.warning !== null && rule.critical !== null && meets(rule.comparator, rule.warning, rule.critical)) {
      if (rule.warning !== rule.critical) {
        ctx.addIssue({ code: 'custom', path: ['critical'], message: 'critical must be beyond warning' });
      }
    }
    const firing = rule.warning ?? rule.critical;
    if (rule.resolveThreshold !== null && firing !== null && meets(rule.comparator, rule.resolveThreshold, firing)) {
      if (rule.resolveThreshold !== firing) {
        ctx.addIssue({
          code: 'custom',
          path: ['resolveThreshold'],
          message: 'the resolve threshold must lie on the clear side of the firing threshold',
        });
      }
    }
  });

/** A rule as sent: a target may name a saved one by id instead of giving its URL. */
export type RuleInput = z.output<typeof ruleInputSchema>;

/** A rule as stored: every target has its id and URL. */
export interface RuleDefinition extends Omit<RuleInput, 'targets'> {
  targets: StoredTarget[];
}

export interface Rule extends RuleDefinition {
  id: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * Shipped with every new store, editable and deletable like any rule: seed 002's retry loop, a server whose
 * traffic is a fifth avoidable, and a client that keeps re-sending what was refused.
 */
export const DEFAULT_RULES: readonly RuleInput[] = [
  ruleInputSchema.parse({
    name: 'Identity re-presented 40 times in 10 minutes',
    metric: 'identity_representations',
    groupBy: 'identity',
    critical: 40,
    windowSeconds: 10 * MINUTE,
    intervalSeconds: MINUTE,
    keepFiringForSeconds: 5 * MINUTE,
  }),
  ruleInputSchema.parse({
    name: 'Avoidable share of a server over 15 minutes',
    metric: 'avoidable_share',
    groupBy: 'server',
    warning: 0.2,
    critical: 0.5,
    windowSeconds: 15 * MINUTE,
    intervalSeconds: MINUTE,
    pendingSeconds: 2 * MINUTE,
    keepFiringForSeconds: 5 * MINUTE,
  }),
  ruleInputSchema.parse({
    name: 'Client retried 10 times after a refusal in 5 minutes',
    metric: 'retries_after_refusal',
    groupBy: 'client',
    critical: 10,
    windowSeconds: 5 * MINUTE,
    intervalSeconds: MINUTE,
    keepFiringForSeconds: 5 * MINUTE,
  }),
];
