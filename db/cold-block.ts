import type { ColumnKind, ColumnSpec } from '../shared/column-block.ts';
import type { EventColumns } from './event-row.ts';

/**
 * How each column of an event row is laid out in a cold block (shared/column-block.ts,
 * docs/adr/0021-cold-events-in-blocks.md): the times and arrival order as differences, the event's own keys as text
 * after what they share with the row before, every other column through its block's dictionary. Declared for every
 * column of EventColumns, so that a column added to the row cannot be left out of its cold form.
 */
const EVENT_KINDS = {
  seq: 'delta',
  eventId: 'text',
  ts: 'delta',
  source: 'dict',
  client: 'dict',
  server: 'dict',
  session: 'dict',
  protocol: 'dict',
  rpcMethod: 'dict',
  rpcName: 'dict',
  era: 'dict',
  protocolVersion: 'dict',
  continuation: 'dict',
  httpMethod: 'dict',
  httpPath: 'dict',
  httpStatus: 'dict',
  rpcCode: 'dict',
  latencyMs: 'dict',
  timeout: 'dict',
  discoveryRead: 'dict',
  retryAfter: 'dict',
  identity: 'dict',
  correlation: 'text',
  requestId: 'text',
  partner: 'text',
  counted: 'dict',
  bucket: 'dict',
  kind: 'dict',
  rule: 'dict',
  evidence: 'dict',
  waitUntil: 'delta',
  ctxRequested: 'dict',
  ctxApplied: 'dict',
  ctxReason: 'dict',
  avoidable: 'dict',
  gateReason: 'dict',
  blockedBy: 'dict',
  actProfile: 'dict',
  sourceFormat: 'dict',
  frames: 'dict',
} as const satisfies Record<keyof EventColumns, ColumnKind>;

/** An event row's fields, every one, in the order a cold block holds their columns. */
export const EVENT_FIELDS = Object.keys(EVENT_KINDS) as (keyof EventColumns)[];

/** An event row's columns in a cold block, in the order the block holds them. */
export const EVENT_BLOCK_COLUMNS: readonly ColumnSpec[] = Object.entries(EVENT_KINDS).map(([name, kind]) => ({
  name,
  kind,
}));

/** The line the event arrived as (ADR 5), when a cold block holds it beside the columns. */
export const LINE_COLUMN: ColumnSpec = { name: 'line', kind: 'text' };
