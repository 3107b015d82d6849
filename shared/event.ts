import { z } from 'zod';

/**
 * One line of a federation log: one request as seen by one observer, with its outcome (DOMAIN.md section 2).
 * Only `ts`, `source`, `server` (and `client` for client logs) are required; unknown members are ignored so
 * that producers can log more than we read.
 */
// A NUL character has no business in a name or a path, and PostgreSQL text cannot hold one.
const noNul = (value: string) => !value.includes('\u0000');
const text = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).refine(noNul, 'must not contain NUL');
const nonEmpty = (max: number) => text(max).refine((value) => value.length > 0, 'must not be empty');
const name = nonEmpty(200);
// Frames are kept untouched and only need to be objects; checking that directly costs a fraction of a record schema,
// and this runs for every line on the ingest hot path.
const frame = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be a JSON object (a JSON-RPC frame)',
);

const timestamp = z.union([
  z.number().int().nonnegative().max(8.64e15, 'is not a valid epoch millisecond value'),
  z.iso.datetime({
    offset: true,
    precision: undefined,
    message: 'must be an ISO 8601 date-time with a zone (Z or ±hh:mm) or epoch milliseconds',
  }),
]);

export const eventSchema = z.object({
  id: nonEmpty(256).optional(),
  ts: timestamp,
  source: z.enum(['client', 'proxy']),
  client: name.optional(),
  server: name,
  session: text(512).optional(),
  protocol: z.enum(['mcp', 'a2a']).default('mcp'),
  http: z
    .object({
      method: nonEmpty(16).optional(),
      path: text(4096).optional(),
      status: z.number().int().min(0).max(999).optional(),
      retryAfter: z.number().nonnegative().optional(),
    })
    .optional(),
  request: frame.optional(),
  response: frame.optional(),
  latencyMs: z.number().nonnegative().optional(),
  timeout: z.boolean().optional(),
  discoveryRead: z.boolean().optional(),
});

export type EventInput = z.input<typeof eventSchema>;

/** A validated event with its timestamp resolved to epoch milliseconds. */
export type LensEvent = Omit<z.output<typeof eventSchema>, 'ts'> & { ts: number };

export const LINE_ERROR_CODES = ['invalid_json', 'not_an_object', 'missing_field', 'invalid_field'] as const;
export type LineErrorCode = (typeof LINE_ERROR_CODES)[number];

export interface LineError {
  code: LineErrorCode;
  /** Dotted path of the offending member, when one member is at fault. */
  field?: string;
  message: string;
}

export type ParseResult = { ok: true; event: LensEvent } | { ok: false; error: LineError };

/** Validates one already-decoded value as an event. */
export function validateEvent(value: unknown): ParseResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: { code: 'not_an_object', message: 'each line must be one JSON object (an event)' } };
  }
  const parsed = eventSchema.safeParse(value);
  if (!parsed.success) return { ok: false, error: describeIssue(parsed.error.issues[0], value) };
  const event = parsed.data;
  if (event.source === 'client' && event.client === undefined) {
    return {
      ok: false,
      error: { code: 'missing_field', field: 'client', message: '"client" is required when source is "client"' },
    };
  }
  const ts = typeof event.ts === 'number' ? event.ts : Date.parse(event.ts);
  return { ok: true, event: { ...event, ts } };
}

/** Decodes and validates one NDJSON line. */
export function parseEventLine(line: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: {
        code: 'invalid_json',
        message: `not valid JSON (${detail}); each line must be one complete JSON object`,
      },
    };
  }
  return validateEvent(value);
}

function describeIssue(issue: z.core.$ZodIssue | undefined, value: object): LineError {
  if (issue === undefined) return { code: 'invalid_field', message: 'the event is invalid' };
  const field = issue.path.map(String).join('.');
  if (valueAt(value, issue.path) === undefined) {
    const condition = issue.code === 'custom' ? ` ${issue.message}` : ' is required';
    return { code: 'missing_field', field, message: `"${field}"${condition}` };
  }
  const detail = issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  return { code: 'invalid_field', field, message: `"${field}": ${detail}` };
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
