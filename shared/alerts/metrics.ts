/**
 * What an alert rule can watch. Each metric is read through the function the dashboard shows it with
 * (api/services/alerts/readings.ts), from the counts the fold keeps (db/counters/): counts and rates from the
 * rollups, conduct from their conduct columns, the context gap from its counts, storms from the kept storms (ADR 6)
 * and re-presentations from the identity hours (ADR 7), each folded through the same function in shared/analysis.
 */
export const METRICS = [
  'refusal_count',
  'refusal_rate',
  'transient_count',
  'transient_rate',
  'throttled_count',
  'throttled_rate',
  'ambiguous_count',
  'ambiguous_rate',
  'avoidable_count',
  'avoidable_share',
  'identity_representations',
  'probe_storm_size',
  'retries_after_refusal',
  'context_trim_rate',
  'undeclared_requests',
  'denials_not_held',
  'failures_without_policy',
  'hidden_failures',
  'hidden_throttles',
] as const;
export type Metric = (typeof METRICS)[number];

export const GROUP_BYS = ['none', 'server', 'client', 'identity'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

export interface MetricInfo {
  label: string;
  /** A ratio lies in [0, 1] and is shown as a percentage. */
  unit: 'count' | 'ratio';
  /**
   * Where the reading comes from: counters kept at ingest (the bucket rollups, their conduct counters, the context
   * counts) and the storms kept at ingest, cheap at any window; or the identity ranking GET /identities runs in SQL.
   */
  source: 'rollup' | 'conduct' | 'context' | 'identities' | 'storms' | 'denials' | 'actionability';
  groupBys: readonly GroupBy[];
  /** False when its counts are not kept per client, so that a rule cannot be scoped to one. */
  clientScope?: false;
  /** One line for the rule editor: what the number is. */
  help: string;
}

const TRAFFIC_GROUPS: readonly GroupBy[] = ['none', 'server', 'client'];

function bucketMetrics<B extends string>(bucket: B, meaning: string): Record<`${B}_count` | `${B}_rate`, MetricInfo> {
  const name = `${bucket[0]?.toUpperCase()}${bucket.slice(1)}`;
  return {
    [`${bucket}_count`]: {
      label: `${name} count`,
      unit: 'count',
      source: 'rollup',
      groupBys: TRAFFIC_GROUPS,
      help: `Requests classified ${bucket} (${meaning}) in the window.`,
    },
    [`${bucket}_rate`]: {
      label: `${name} rate`,
      unit: 'ratio',
      source: 'rollup',
      groupBys: TRAFFIC_GROUPS,
      help: `Share of all requests in the window classified ${bucket}; no data when there were no requests.`,
    },
  } as Record<`${B}_count` | `${B}_rate`, MetricInfo>;
}

export const METRIC_INFO: Record<Metric, MetricInfo> = {
  ...bucketMetrics('refusal', 'a statement about the contract'),
  ...bucketMetrics('transient', 'about the moment'),
  ...bucketMetrics('throttled', 'about rate'),
  ...bucketMetrics('ambiguous', 'no safe reading'),
  avoidable_count: {
    label: 'Avoidable requests',
    unit: 'count',
    source: 'rollup',
    groupBys: TRAFFIC_GROUPS,
    help: 'Requests a correct client would never have sent (the gate replay), in the window.',
  },
  avoidable_share: {
    label: 'Avoidable share',
    unit: 'ratio',
    source: 'rollup',
    groupBys: TRAFFIC_GROUPS,
    help: 'Avoidable requests as a share of all requests in the window.',
  },
  identity_representations: {
    label: 'Re-presentations of one identity',
    unit: 'count',
    source: 'identities',
    groupBys: ['none', 'server', 'identity'],
    help: 'Sends of the same request digest after its first, for the most re-presented identity in the group.',
  },
  probe_storm_size: {
    label: 'Probe storm size',
    unit: 'count',
    source: 'storms',
    groupBys: TRAFFIC_GROUPS,
    help: 'Attempts in the largest probe storm (undeclared paths tried one after another) in the window.',
  },
  retries_after_refusal: {
    label: 'Retries after a refusal',
    unit: 'count',
    source: 'conduct',
    groupBys: TRAFFIC_GROUPS,
    help: 'Requests re-sent after the server had authoritatively refused the same request.',
  },
  context_trim_rate: {
    label: 'Context trim rate',
    unit: 'ratio',
    source: 'context',
    groupBys: ['none', 'server'],
    help: 'Share of sampling requests whose applied context was narrower than requested; no data when none reported.',
  },
  undeclared_requests: {
    label: 'Requests to undeclared paths',
    unit: 'count',
    source: 'rollup',
    groupBys: TRAFFIC_GROUPS,
    help: 'Requests refused because the path or method is not in the server’s discovery document.',
  },
  denials_not_held: {
    label: 'Denials that did not hold',
    unit: 'count',
    source: 'denials',
    groupBys: TRAFFIC_GROUPS,
    help: 'Refused requests answered differently while the refusal still stood: decided afresh instead of kept.',
  },
  failures_without_policy: {
    label: 'Failures without a policy',
    unit: 'ratio',
    source: 'actionability',
    groupBys: ['none', 'server'],
    clientScope: false,
    help: 'Share of failures whose typed fields do not say what to do (repair, authenticate, wait, use another tool, stop), so a client must read prose; no data without failures.',
  },
  hidden_failures: {
    label: 'Hidden failures',
    unit: 'count',
    source: 'actionability',
    groupBys: ['none', 'server'],
    clientScope: false,
    help: 'Answers that look successful (no error, no isError, a 2xx) but whose text says the call failed: no client’s error handling sees them.',
  },
  hidden_throttles: {
    label: 'Hidden throttles',
    unit: 'count',
    source: 'actionability',
    groupBys: ['none', 'server'],
    clientScope: false,
    help: 'Answers that look successful but whose text says the caller is rate limited: no client’s 429 handling sees them.',
  },
};

/** Whether the metric is a share in [0, 1] (shown in percent) rather than a count. */
export function isRatio(metric: Metric): boolean {
  return METRIC_INFO[metric].unit === 'ratio';
}
