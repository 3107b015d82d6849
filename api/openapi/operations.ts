import { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import { NDJSON_TYPES } from '../ingest-body.ts';
import { OTLP_MEDIA_TYPES } from '../routes/otlp.ts';
import * as answer from './answers.ts';

/**
 * What the OpenAPI document says of each route besides its input: a summary, the success answer, and the refusals
 * its handler adds to those every route gives (api/openapi/refusals.ts derives those). The input (query, path,
 * JSON body) is not here: the document reads it from the route's own `validate` middleware. A route missing here,
 * or an entry for no route, fails tests/api/openapi.test.ts.
 */
export interface Operation {
  tag: Tag;
  summary: string;
  description?: string;
  /** The success answer: its status (200 unless said), what it means, and its body per media type. */
  /** `body` is the JSON answer's schema; a route that answers no JSON (the Prometheus exposition) has only `alsoAs`. */
  ok: { status?: 200 | 201; description: string; body?: z.ZodType; alsoAs?: Record<string, string> };
  /** A body that is no validated JSON (log ingest): what it is, and the media types taken. */
  rawBody?: { description: string; mediaTypes: readonly string[] };
  /** Refusals of the handler and its own middleware, beyond the ones every route gives. */
  refusals?: readonly ErrorCode[];
  /** What the route does with the store: a write can also meet a full or read-only one; `none` never meets it. */
  store?: 'reads' | 'writes' | 'none';
}

export const TAGS = {
  status: 'Whether the server is up, and this description of the API',
  ingest: 'Sending logs and traces',
  events: 'Classified events and their counts',
  servers: 'Servers, their traffic and their contracts',
  analysis: 'Retry storms, request identities, the context gap and client conduct',
  alerts: 'Alert rules, alerts, their history and deliveries',
  metrics: 'The numbers for Prometheus and Grafana',
} as const;
type Tag = keyof typeof TAGS;

const document = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) });

/** A table route's downloads (api/export.ts), asked for with `?format=csv|ndjson` or the Accept header. */
function downloadsOf(rows: string): Record<string, string> {
  const every = `Every ${rows} of the filters and range, not a page, streamed as an attachment`;
  return {
    'text/csv': `${every}: a header of dotted paths into the JSON rows, text a spreadsheet would run behind a '.`,
    'application/x-ndjson': `${every}: the JSON rows, one a line.`,
  };
}

export const OPERATIONS: Record<string, Operation> = {
  'GET /api/v1/health': {
    tag: 'status',
    summary: 'Up, and how far the analysis trails the stored events',
    ok: {
      description: 'The server answers; `analysis` says the lag, `kept` where retention begins.',
      body: answer.health,
    },
  },
  'GET /api/v1/openapi.json': {
    tag: 'status',
    summary: 'This document',
    ok: { description: 'The OpenAPI 3.1 description of the API.', body: document },
    store: 'none',
  },
  'POST /api/v1/ingest': {
    tag: 'ingest',
    summary: 'Store a batch of events, or access-log lines',
    description:
      'Good lines are committed together before the answer; bad lines are reported by line number and never half-applied. Re-sending an event is a duplicate. With `format`, the body is an access log as the proxy wrote it.',
    rawBody: {
      description:
        'NDJSON events or a JSON array of them (`format=native`), or access-log lines; gzip with Content-Encoding.',
      mediaTypes: [...NDJSON_TYPES, 'application/json'],
    },
    ok: { description: 'What was stored, rejected and warned about.', body: answer.ingestReport },
    refusals: ['unsupported_media_type', 'invalid_encoding', 'analysis_behind'],
    store: 'writes',
  },
  'GET /metrics': {
    tag: 'metrics',
    summary: "The federation's counts and the product's health, for a Prometheus scrape",
    description: 'Text format 0.0.4, or OpenMetrics 1.0 when Accept asks for it. See the README, "Prometheus".',
    ok: {
      description: 'The exposition.',
      alsoAs: {
        'text/plain; version=0.0.4': 'The Prometheus text format.',
        'application/openmetrics-text; version=1.0.0': 'OpenMetrics 1.0, ending in # EOF.',
      },
    },
  },
  'POST /v1/traces': {
    tag: 'ingest',
    summary: 'OTLP/HTTP traces, as an OpenTelemetry exporter sends them',
    description:
      "OTLP's standard path, beside the API. Answers in the request's encoding. A full store answers 503 `unavailable` (not 507), which exporters retry.",
    rawBody: {
      description: 'An ExportTraceServiceRequest; gzip with Content-Encoding.',
      mediaTypes: [...OTLP_MEDIA_TYPES.keys()],
    },
    ok: {
      description: "OTLP's ExportTraceServiceResponse: empty, or `partialSuccess` counting the spans not stored.",
      body: answer.traceExportResponse,
      alsoAs: { 'application/x-protobuf': 'ExportTraceServiceResponse, protobuf-encoded' },
    },
    refusals: ['unsupported_media_type', 'invalid_encoding', 'analysis_behind', 'unavailable', 'store_read_only'],
  },
  'GET /api/v1/events': {
    tag: 'events',
    summary: 'Classified events, newest first, a page at a time',
    description:
      "A row per request: a request its client and a proxy both logged is the record it is counted by (the client's, with the client's outcome), the proxy's record behind it in `partnerRecord`. `records=all` lists every stored record instead.",
    ok: {
      description: 'A page of events, the cursor of the next, and on the first page the total.',
      body: answer.eventPage,
      alsoAs: downloadsOf('event'),
    },
  },
  'GET /api/v1/events/{id}': {
    tag: 'events',
    summary: 'One event: its frames, classification, gate verdict, era and, for an MRTR round, its call',
    ok: { description: 'The event.', body: answer.eventWithCall },
    refusals: ['not_found'],
  },
  'GET /api/v1/summary': {
    tag: 'events',
    summary: 'Counts per bucket and kind, and avoidable requests: overall, per server, per client',
    ok: { description: 'The counts over the range.', body: answer.summary },
  },
  'GET /api/v1/span': {
    tag: 'events',
    summary: 'When the stored events happened: the oldest and the newest',
    description:
      'Whatever range a screen shows: where to look when a range is empty. Once retention has run, hour counts can reach further back than the events (GET /api/v1/health, `kept`).',
    ok: { description: 'The first and last stored event time.', body: answer.storedSpan },
  },
  'GET /api/v1/timeseries': {
    tag: 'events',
    summary: 'Counted and avoidable requests per bucket per time step',
    ok: { description: 'One point per step over the range.', body: answer.timeseries },
  },
  'GET /api/v1/servers': {
    tag: 'servers',
    summary: 'Per server: traffic, buckets, avoidable requests, whether its discovery document is known',
    ok: {
      description: 'The servers with traffic or configuration.',
      body: answer.serverList,
      alsoAs: downloadsOf('server'),
    },
  },
  'GET /api/v1/servers/{server}': {
    tag: 'servers',
    summary: "A server's drill-down: failures per code, loops, identities, clients, context gap, eras",
    ok: { description: 'The server over the range.', body: answer.serverDetail },
    refusals: ['not_found'],
  },
  'GET /api/v1/servers/{server}/discovery': {
    tag: 'servers',
    summary: "The server's discovery document",
    ok: { description: 'The document as read and as sent.', body: answer.discovery },
    refusals: ['not_found'],
  },
  'PUT /api/v1/servers/{server}/discovery': {
    tag: 'servers',
    summary: "Set the server's discovery document; its stored failures are reclassified",
    description: 'A list of endpoints and methods, an A2A Agent Card (v0.3 or v1.0) or an MCP server card.',
    ok: { description: 'The document as read, and how many failures were reclassified.', body: answer.discoveryChange },
    refusals: ['invalid_discovery'],
    store: 'writes',
  },
  'GET /api/v1/servers/{server}/overrides': {
    tag: 'servers',
    summary: "The server's code overrides",
    ok: { description: 'The overrides.', body: answer.overrides },
    refusals: ['not_found'],
  },
  'PUT /api/v1/servers/{server}/overrides': {
    tag: 'servers',
    summary: "Set the server's code overrides; its stored failures are reclassified",
    ok: { description: 'The overrides, and how many failures were reclassified.', body: answer.overridesChange },
    store: 'writes',
  },
  'GET /api/v1/storms': {
    tag: 'analysis',
    summary: 'Retry loops and probe storms that ran in the range',
    ok: {
      description: 'The storms, whole, with how many there are and how many are active.',
      body: answer.stormList,
      alsoAs: downloadsOf('storm'),
    },
  },
  'GET /api/v1/storms/{id}': {
    tag: 'analysis',
    summary: 'One storm with its attempt timeline',
    ok: { description: 'The storm.', body: answer.storm, alsoAs: downloadsOf('attempt of the storm') },
    refusals: ['not_found'],
  },
  'GET /api/v1/identities': {
    tag: 'analysis',
    summary: 'Re-presentations per request identity: the most sent, or those over the alarm',
    ok: { description: 'The identities.', body: answer.identityList, alsoAs: downloadsOf('identity of the ranking') },
  },
  'GET /api/v1/identities/{identity}': {
    tag: 'analysis',
    summary: "One identity's sends and alarms over the range",
    ok: { description: 'The identity.', body: answer.identity },
    refusals: ['not_found'],
  },
  'GET /api/v1/context-gap': {
    tag: 'analysis',
    summary: 'Per server: requested against applied includeContext, trim rate, reasons, trend',
    ok: { description: 'The servers that reported context.', body: answer.contextGap },
  },
  'GET /api/v1/denials': {
    tag: 'analysis',
    summary: 'Denials that did not hold: refused identities answered differently while the refusal stood',
    ok: { description: 'The audit of the decision store.', body: answer.denials },
  },
  'GET /api/v1/actionability': {
    tag: 'analysis',
    summary: "What failures let a client decide: seed 004's six bits per server and for the fleet, in two views",
    description:
      "Counted failures over the range with how many earned each of D (failure detected), P (coarse policy), C (cause), T (repair target), E (executable repair) and R (replay constraints), and how many had each profile, in the control view (typed fields only) and with transport (HTTP status, Retry-After). Servers are ranked by bits per failure, with componentwise dominance between them. A failure's bits and the fields that earned them: GET /api/v1/events?server=…&failed=true.",
    ok: { description: 'The fleet and its servers.', body: answer.actionability },
  },
  'GET /api/v1/clients': {
    tag: 'analysis',
    summary: 'Per client: avoidable share, conduct findings, the servers it hurts most',
    ok: { description: 'The clients.', body: answer.clients, alsoAs: downloadsOf('client') },
  },
  'GET /api/v1/alerts': {
    tag: 'alerts',
    summary: 'Pending and firing alerts (with `resolved=1`, recently resolved too)',
    ok: { description: 'The alert instances, firing first.', body: answer.alertList },
  },
  'GET /api/v1/alerts/history': {
    tag: 'alerts',
    summary: 'Every state transition, newest first',
    ok: { description: 'A page of transitions and where the next begins.', body: answer.alertHistory },
  },
  'GET /api/v1/alerts/deliveries': {
    tag: 'alerts',
    summary: 'Every notification with its delivery attempts',
    ok: { description: 'The deliveries, newest first.', body: answer.deliveryLog },
  },
  'GET /api/v1/alerts/rules': {
    tag: 'alerts',
    summary: 'Alert rules with their firing and pending counts',
    ok: { description: 'The rules; target URLs shown as hosts.', body: answer.ruleList },
  },
  'POST /api/v1/alerts/rules': {
    tag: 'alerts',
    summary: 'Create an alert rule',
    ok: { status: 201, description: 'The rule as stored.', body: answer.ruleAnswer },
    store: 'writes',
  },
  'POST /api/v1/alerts/rules/preview': {
    tag: 'alerts',
    summary: 'What a rule would have done over a range (at most 7 days; default the last day)',
    ok: { description: 'The metric per group and the transitions the rule would have made.', body: answer.preview },
    refusals: ['unavailable'],
  },
  'GET /api/v1/alerts/rules/{id}': {
    tag: 'alerts',
    summary: 'One alert rule',
    ok: { description: 'The rule.', body: answer.ruleAnswer },
    refusals: ['not_found'],
  },
  'PUT /api/v1/alerts/rules/{id}': {
    tag: 'alerts',
    summary: 'Replace an alert rule; what it had firing resolves',
    ok: { description: 'The rule as stored.', body: answer.ruleAnswer },
    refusals: ['not_found', 'secret_required'],
    store: 'writes',
  },
  'DELETE /api/v1/alerts/rules/{id}': {
    tag: 'alerts',
    summary: 'Delete an alert rule; its history stays',
    ok: { description: 'Deleted.', body: answer.ruleDeleted },
    refusals: ['not_found'],
    store: 'writes',
  },
};
