import { z } from 'zod';
import { BITS } from '../../shared/actionability/profile.ts';
import { ALERT_STATES } from '../../shared/alerts/state.ts';
import { STORM_KINDS } from '../../shared/analysis/storm-model.ts';
import { BUCKETS } from '../../shared/classify/types.ts';
import { ERAS } from '../../shared/era.ts';
import { TOTAL_CAP } from '../services/events.ts';

/**
 * The success bodies as the OpenAPI document shows them: each answer's main members, loose (an answer may carry
 * more). The services' answers are TypeScript types, which zod cannot read; these are written beside them and held
 * to the real answers by tests/api/openapi.test.ts, which parses every route's answer with its schema here.
 */

const epochMs = z.number().int().meta({ description: 'epoch milliseconds' });
const iso = z.string().meta({ description: 'ISO 8601 date-time' });
const bucket = z.enum(BUCKETS);
const bucketCounts = z.object(Object.fromEntries(BUCKETS.map((b) => [b, z.number().int()]))).meta({
  description: 'requests per bucket',
});
const counts = z.looseObject({
  total: z.number().int(),
  avoidable: z.number().int().meta({ description: 'requests a correct client would not have sent' }),
  buckets: bucketCounts,
  kinds: z.record(z.string(), z.record(z.string(), z.number().int())).meta({ description: 'per bucket, per kind' }),
});
/** Keyed by names taken from logs (servers, clients): a record, never a fixed set of members. */
const countsByName = z.record(z.string(), counts);

export const health = z.looseObject({
  status: z.literal('ok'),
  analysis: z.looseObject({
    pendingEvents: z.number().int(),
    pendingPartitions: z.number().int(),
    lagMs: z.number(),
    analysedThrough: iso,
    maxLagMs: z.number(),
  }),
  kept: z.looseObject({ eventsFrom: epochMs.nullable(), countsFrom: epochMs.nullable(), rowsFrom: epochMs.nullable() }),
});

/** When some events happened: the first and last `ts`. */
const span = z.looseObject({ first: iso, last: iso });

const lineProblem = z.looseObject({ line: z.number().int(), message: z.string(), field: z.string().optional() });
export const ingestReport = z.looseObject({
  accepted: z.number().int(),
  duplicates: z.number().int(),
  rejected: z.array(lineProblem.extend({ code: z.string() })).meta({ description: 'the first 1000, by line' }),
  rejectedTotal: z.number().int(),
  warnings: z.array(lineProblem).meta({ description: 'the first 1000, by line' }),
  warningsTotal: z.number().int(),
  span: span.nullable().meta({
    description: "the batch's events, stored now or before (duplicates): their first and last time; null without any",
  }),
});

/** OTLP's ExportTraceServiceResponse in its JSON encoding: empty, or the spans that could not become events. */
export const traceExportResponse = z.looseObject({
  partialSuccess: z.looseObject({ rejectedSpans: z.string(), errorMessage: z.string() }).optional(),
});

export const event = z.looseObject({
  id: z.string(),
  ts: iso,
  source: z.string(),
  client: z.string().nullable(),
  server: z.string(),
  method: z.string().nullable(),
  http: z.looseObject({ method: z.string().nullable(), path: z.string().nullable(), status: z.number().nullable() }),
  rpcCode: z.number().nullable(),
  identity: z.string().nullable(),
  era: z.enum(ERAS).nullable().meta({
    description: 'the MCP era its request speaks (DOMAIN.md section 10); null where nothing tells, and for A2A',
  }),
  protocolVersion: z.string().nullable().meta({ description: 'the protocol version the request named' }),
  continuation: z.boolean().meta({ description: 'an MRTR round that carries the answers to an input request' }),
  inputRequests: z
    .array(
      z.looseObject({
        key: z.string(),
        method: z.string(),
        sender: z.literal('server'),
        identity: z.string().nullable(),
        includeContext: z.enum(['none', 'thisServer', 'allServers']).optional(),
      }),
    )
    .meta({
      description:
        'what an input_required answer asks of the client (DOMAIN.md section 10): each request the server made inside the result, keyed as it named it, with its section 5 identity and, for sampling, the context asked for; empty for any other answer',
    }),
  bucket,
  kind: z.string(),
  rule: z.string().meta({ description: 'the classification rule that decided the bucket' }),
  avoidable: z.boolean(),
  gateReason: z.string().nullable(),
  request: z.unknown(),
  response: z.unknown(),
  actionability: z
    .looseObject({
      control: z.looseObject({ profile: z.string(), evidence: z.record(z.string(), z.string()) }),
      transport: z.looseObject({ profile: z.string(), evidence: z.record(z.string(), z.string()) }),
      content: z.looseObject({
        profile: z.string(),
        evidence: z.record(z.string(), z.string()),
        text: z
          .record(z.string(), z.looseObject({ rule: z.string(), span: z.string() }))
          .meta({ description: 'per bit earned from text: the lexical rule that fired and the text it fired on' }),
      }),
      hidden: z
        .looseObject({ failure: z.boolean(), throttle: z.boolean() })
        .meta({ description: 'a success whose text says it failed (and that the caller is rate limited)' }),
    })
    .nullable()
    .meta({
      description: "a failure's profile per view and, per bit earned, the field that earned it; a hidden failure's too",
    }),
});
/** One event as GET /events/{id} answers it: with the MRTR call it is a round of, found when it is read. */
export const eventWithCall = event.extend({
  call: z
    .looseObject({
      rounds: z.array(z.looseObject({ id: z.string(), ts: iso, bucket, kind: z.string(), continuation: z.boolean() })),
      round: z.number().int().meta({ description: 'which round the event is, 1 for the first' }),
      firstInLog: z
        .boolean()
        .meta({ description: 'false when the log holds a continuation but not the send before it' }),
    })
    .nullable()
    .meta({
      description:
        "the call's rounds in the log: the client's records of the same request identity to the same server, a send and each continuation within 60 s of the round before; null for an event that neither asked for input, nor answers an input request, nor was answered by one",
    }),
});
export const eventPage = z.looseObject({
  events: z.array(
    event.extend({
      partnerRecord: event.nullable().meta({
        description:
          "a request's other record (the proxy's, when its client logged it too), whole; null in a list of records (`records=all`)",
      }),
    }),
  ),
  nextCursor: z.string().nullable().meta({ description: 'pass as `cursor` for the next, older page' }),
  total: z
    .looseObject({
      count: z.number().int(),
      capped: z.boolean().meta({ description: `true: more than \`count\` (counting stops at ${TOTAL_CAP})` }),
    })
    .nullable()
    .meta({
      description:
        'the rows of the whole filter, requests or records, on the first page; null after it, and where a bucket, kind or profile is asked for, or failures but of one server',
    }),
});

export const storedSpan = z.looseObject({
  first: iso.nullable().meta({ description: 'the oldest stored event; null on an empty store' }),
  last: iso.nullable().meta({ description: 'the newest stored event; null on an empty store' }),
});

export const summary = z.looseObject({
  range: z.looseObject({ from: iso.nullable(), to: iso.nullable() }),
  overall: counts,
  servers: countsByName,
  clients: countsByName,
});

export const serverList = z.looseObject({
  servers: z.array(
    z.looseObject({
      server: z.string(),
      hasDiscovery: z.boolean(),
      requests: z.number().int(),
      avoidable: z.number().int(),
      buckets: bucketCounts,
    }),
  ),
});
/** The protocol eras of a server's or a client's requests, and the MRTR input requests among them (section 10). */
const eraMix = z.looseObject({
  requests: z
    .looseObject({ '2025': z.number().int(), '2026': z.number().int(), none: z.number().int() })
    .meta({ description: 'requests per era; none: the request does not tell (A2A, a /.well-known/ read)' }),
  legacyProbes: z.number().int().meta({ description: '2026-era probes answered as a 2025-only server answers them' }),
  inputRequests: z.looseObject({
    pending: z.number().int().meta({ description: 'rounds answered input_required' }),
    continuations: z.number().int().meta({ description: 'rounds that carry the answers to an input request' }),
    calls: z
      .number()
      .int()
      .meta({ description: 'calls that asked for input: their first round was answered input_required' }),
    rounds: z.number().int().meta({ description: 'the rounds of those calls' }),
    roundsPerCall: z.number().nullable().meta({ description: 'rounds / calls; null without a call that asked' }),
  }),
  speaks: z.array(z.enum(ERAS)).meta({
    description:
      'a client: the eras it sent requests in; a server: those it answered in (a 2026 probe answered as a 2025-only server does is none). ["2025"]: speaks, or answers, only 2025',
  }),
});
export const serverDetail = z.looseObject({
  server: z.string(),
  range: z.looseObject({ from: epochMs, to: epochMs }),
  counts,
  clients: countsByName,
  sentByServer: z
    .looseObject({
      avoidable: z.number().int().meta({
        description: 'avoidable requests the server sent its clients (a sampling request re-sent after a denial)',
      }),
      inRounds: z
        .looseObject({
          requests: z.number().int().meta({ description: 'requests it made inside input_required answers' }),
          again: z.number().int().meta({ description: 'of them, the same request (identity) asked again' }),
          byMethod: z.record(z.string(), z.number().int()).meta({ description: 'requests per method' }),
        })
        .meta({
          description:
            "what it asked of its clients inside MCP 2026-07-28 rounds (an elicitation/create, a sampling/createMessage in a round's inputRequests), each a send of its own identity; from the kept events",
        }),
    })
    .meta({ description: "the server's own conduct (DOMAIN.md sections 6 and 10): requests it sent to clients" }),
  eras: eraMix,
});

export const discovery = z.looseObject({
  server: z.string(),
  discovery: z.looseObject({}).nullable().meta({ description: 'the document as read: endpoints and methods' }),
  source: z.unknown().meta({ description: 'the document as it was sent' }),
});
export const overrides = z.looseObject({
  server: z.string(),
  overrides: z.array(z.looseObject({ bucket, kind: z.string() })),
});
/** A change of a server's contract reclassifies its stored failures in the same transaction. */
const reclassified = z.number().int().meta({ description: 'stored failures reclassified by the change' });
export const discoveryChange = discovery.extend({ reclassified });
export const overridesChange = overrides.extend({ reclassified });

export const timeseries = z.looseObject({
  step: z.number().int().meta({ description: 'milliseconds per point' }),
  points: z.array(
    z.looseObject({ start: epochMs, requests: z.number().int(), avoidable: z.number().int(), buckets: bucketCounts }),
  ),
});

const stormSummary = z.looseObject({
  id: z.string(),
  kind: z.enum(STORM_KINDS),
  client: z.string(),
  server: z.string(),
  sentBy: z.enum(['client', 'server']).meta({ description: 'who sent the attempts: a server sends its own requests' }),
  actor: z.string().meta({ description: 'the sender: the client, or the server' }),
  counterpart: z.string(),
  title: z.string().meta({ description: 'the actor and the fault, in a sentence' }),
  key: z.string(),
  attempts: z.number().int(),
  avoidable: z.number().int(),
  firstTs: epochMs,
  lastTs: epochMs,
  paths: z.array(z.string()),
  firstFailure: z.looseObject({ bucket, kind: z.string() }),
});
export const stormList = z.looseObject({
  storms: z.array(stormSummary),
  total: z.number().int(),
  active: z.number().int(),
  complete: z.boolean().meta({ description: 'false while storms of older events are still being built' }),
});
export const storm = stormSummary.extend({
  timeline: z.array(
    z.looseObject({
      id: z.string(),
      ts: epochMs,
      rpcMethod: z.string().nullable(),
      status: z.number().nullable(),
      bucket,
      avoidable: z.boolean(),
    }),
  ),
});

export const identity = z.looseObject({
  identity: z.string(),
  server: z.string(),
  method: z.string().nullable(),
  sends: z.number().int(),
  represented: z.number().int().meta({ description: 'sends after the first' }),
  firstSeen: epochMs,
  lastSeen: epochMs,
  alarms: z.array(z.looseObject({ count: z.number().int(), start: epochMs, end: epochMs })),
  series: z.array(z.looseObject({ start: epochMs, count: z.number().int() })),
});
export const identityList = z.looseObject({
  identities: z.array(identity),
  exact: z.boolean().optional().meta({ description: 'false when an identity sent a few times an hour could miss' }),
  total: z.number().int().optional().meta({ description: 'with only=alarmed: how many are over the alarm' }),
});

export const contextGap = z.looseObject({
  servers: z.array(
    z.looseObject({
      server: z.string(),
      reported: z.number().int(),
      trimmed: z.number().int(),
      trimRate: z.number().nullable(),
      reasons: z.record(z.string(), z.number().int()),
    }),
  ),
});

const denialSide = z.looseObject({
  id: z.string().meta({ description: 'the event id: GET /api/v1/events/{id}' }),
  ts: epochMs,
  session: z.string().nullable(),
  bucket,
  kind: z.string(),
  rpcCode: z.number().int().nullable(),
  httpStatus: z.number().int().nullable(),
});
export const denials = z.looseObject({
  from: iso,
  to: iso,
  total: z.number().int().meta({ description: 'denials that did not hold whose later answer is in the range' }),
  byClient: z.record(z.string(), z.number().int()),
  byServer: z.record(z.string(), z.number().int()),
  items: z
    .array(
      z.looseObject({
        client: z.string(),
        server: z.string(),
        identity: z.string(),
        rpcMethod: z.string().nullable(),
        refusal: denialSide.meta({ description: 'the refusal: the decision that should have stood' }),
        answer: denialSide.meta({ description: 'the later, different answer while it stood' }),
        newSession: z.boolean().nullable().meta({
          description:
            'whether the answer came on another session than the refusal; null for MCP 2026-07-28 traffic, which has no sessions',
        }),
        reprobed: z.boolean().nullable().meta({
          description:
            "MCP 2026-07-28 traffic's 'in between': whether the client sent the server a new server/discover probe after the refusal and before the answer; null for 2025-era traffic",
        }),
        restarted: z.boolean().nullable().meta({
          description:
            'whether the answer came from another client instance than the refusal (the _meta clientInfo differs); null for 2025-era traffic, or where either request carried no clientInfo',
        }),
      }),
    )
    .meta({ description: 'the latest 200 of them, oldest first; the counts are of all' }),
  representedRefusals: z
    .array(
      z.looseObject({
        client: z.string(),
        replayed: z.number().int().meta({ description: 'the same refusal again: the decision store working' }),
        evaluatedAfresh: z.number().int().meta({ description: 'another answer while it stood: did not hold' }),
      }),
    )
    .meta({ description: 'per client, how its re-presented refusals were answered (replays counted per hour)' }),
  analysedThrough: iso,
  lagMs: z.number(),
});

export const clients = z.looseObject({
  clients: z.array(
    z.looseObject({
      client: z.string(),
      requests: z.number().int(),
      avoidable: z.number().int(),
      share: z.number().meta({ description: 'avoidable requests as a share of its requests' }),
      hurtsMost: z.array(z.looseObject({ server: z.string() })),
      eras: eraMix.nullable().meta({
        description: 'its requests per era; null when the read names a server (eras are kept per client, not per pair)',
      }),
    }),
  ),
});

const rule = z.looseObject({
  id: z.string(),
  name: z.string(),
  metric: z.string(),
  enabled: z.boolean(),
  warning: z.number().nullable(),
  critical: z.number().nullable(),
  windowSeconds: z.number().int(),
  targets: z.array(
    z.looseObject({ id: z.string(), type: z.string(), host: z.string(), secretSet: z.literal(true) }).meta({
      description: 'a target as answers show it: its host; the URL is a secret, never read back',
    }),
  ),
  createdAt: epochMs,
  updatedAt: epochMs,
});
export const ruleAnswer = z.looseObject({ rule });
export const ruleList = z.looseObject({
  rules: z.array(rule.extend({ firing: z.number().int(), pending: z.number().int() })),
});
export const ruleDeleted = z.object({ deleted: z.literal(true) });

export const preview = z.looseObject({
  step: z.number().int(),
  points: z.array(epochMs),
  series: z.array(z.looseObject({ group: z.string(), values: z.array(z.number().nullable()) })),
  transitions: z.array(z.looseObject({ at: epochMs, group: z.string(), from: z.string(), to: z.string() })),
  notifications: z.number().int(),
  groups: z.number().int(),
});

export const alertList = z.looseObject({
  alerts: z.array(
    z.looseObject({
      ruleId: z.string(),
      ruleName: z.string(),
      group: z.string(),
      state: z.enum(ALERT_STATES),
      severity: z.string().nullable(),
      value: z.number().nullable(),
      since: epochMs,
      threshold: z.number().nullable().meta({ description: "the threshold of the instance's severity" }),
      warning: z.number().nullable(),
      critical: z.number().nullable(),
      resolveThreshold: z.number().nullable(),
      keepFiringForSeconds: z.number(),
      clearSince: epochMs.nullable().meta({ description: 'while firing: since when the value is clear again' }),
    }),
  ),
});
export const alertHistory = z.looseObject({
  history: z.array(
    z.looseObject({
      id: z.number().int(),
      ruleId: z.string(),
      at: epochMs,
      fromState: z.string(),
      toState: z.string(),
      value: z.number().nullable(),
    }),
  ),
  nextBefore: z.number().int().nullable().meta({ description: 'pass as `before` for the next, older page' }),
});
export const deliveryLog = z.looseObject({
  deliveries: z.array(
    z.looseObject({
      id: z.number().int(),
      ruleId: z.string(),
      status: z.string(),
      target: z.looseObject({ type: z.string(), host: z.string() }),
      notice: z.looseObject({ key: z.string(), status: z.string() }),
      attempts: z.array(z.looseObject({ at: epochMs, httpStatus: z.number().nullable(), outcome: z.string() })),
    }),
  ),
});

const bitCounts = Object.fromEntries(BITS.map((bit) => [bit, z.number().int()]));
const actionabilityCounts = z
  .looseObject({
    failures: z.number().int(),
    ...bitCounts,
    profiles: z.record(z.string(), z.number().int()).meta({ description: 'failures per profile, e.g. "110000"' }),
  })
  .meta({ description: "one view's failures, how many earned each bit (D P C T E R), and how many had each profile" });
const perView = <T extends z.ZodType>(schema: T) =>
  z.looseObject({ control: schema, transport: schema, content: schema });
const hiddenCounts = z
  .looseObject({ failures: z.number().int(), throttles: z.number().int() })
  .meta({ description: 'successes whose text says the call failed, and of them those saying rate limited' });

export const actionability = z.looseObject({
  from: iso,
  to: iso,
  analysedThrough: iso,
  lagMs: z.number(),
  control: actionabilityCounts.meta({ description: "seed 004's control view: typed fields of the frame only" }),
  transport: actionabilityCounts.meta({ description: 'the control view plus the HTTP status and Retry-After' }),
  content: actionabilityCounts.meta({
    description: "seed 004's content view: the control view plus the answer's text",
  }),
  hidden: hiddenCounts,
  servers: z.array(
    z.looseObject({
      server: z.string(),
      control: actionabilityCounts,
      transport: actionabilityCounts,
      content: actionabilityCounts,
      hidden: hiddenCounts,
      bitsPerFailure: perView(z.number()),
      dominates: perView(z.array(z.string())).meta({
        description: 'servers whose every bit share this one matches or beats',
      }),
      dominatedBy: perView(z.array(z.string())),
    }),
  ),
});
