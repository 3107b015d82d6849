import type { RouterRoute } from 'hono/types';
import { z } from 'zod';
import { OPEN_PATHS } from '../middleware/guard.ts';
import { type Validation, validationOf } from '../validate.ts';
import { OPERATIONS, type Operation, TAGS } from './operations.ts';
import { errorBody, errorResponses, refusalsOf } from './refusals.ts';

type JsonSchema = Record<string, unknown>;

/** Hono's `/storms/:id` (or `:id{pattern}`) as OpenAPI writes it, `/storms/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
}

/**
 * The OpenAPI 3.1 document of the app whose routes these are: one path per entry of OPERATIONS, its input read
 * from the `validate` middleware the app runs on that route, so what the document says a route takes is what the
 * route checks.
 */
export function openApiDocument(routes: readonly RouterRoute[]) {
  const checks = new Map<string, Validation[]>();
  for (const route of routes) {
    const validation = validationOf(route.handler);
    if (validation === undefined) continue;
    const key = `${route.method} ${openApiPath(route.path)}`;
    checks.set(key, [...(checks.get(key) ?? []), validation]);
  }
  const paths: Record<string, Record<string, object>> = {};
  for (const [key, operation] of Object.entries(OPERATIONS)) {
    const [method = '', path = ''] = key.split(' ');
    paths[path] = { ...paths[path], [method.toLowerCase()]: describe(path, operation, checks.get(key) ?? []) };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Refusal Lens API',
      version: 'v1',
      description:
        'Classified MCP / A2A federation traffic: refusals, retry storms, request identity, the context gap, alerts. Every refusal has one body, `{"error":{"code","message","fix","retryable","retryAfterSeconds"?,"field"?}}`, with a Retry-After header when waiting helps. Times are ISO 8601 (read as UTC without an offset) or epoch milliseconds; the analysis routes read the 24 hours before now unless given `from` and `to`.',
    },
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Needed only when the server was started with LENS_TOKEN (always beyond loopback). LENS_TOKEN may call every route; LENS_INGEST_TOKEN only POST /api/v1/ingest and /v1/traces.',
        },
      },
      schemas: { Error: schemaOf(errorBody, 'output') },
      headers: {
        RetryAfter: {
          description: 'Seconds to wait before sending the same request again.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
    },
  };
}

function describe(path: string, operation: Operation, checks: readonly Validation[]) {
  const json = checks.find((check) => check.target === 'json');
  const open = OPEN_PATHS.has(path);
  const refusals = refusalsOf(operation, {
    open,
    validated: checks.length > 0,
    body: json !== undefined || operation.rawBody !== undefined,
  });
  const { ok } = operation;
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description !== undefined && { description: operation.description }),
    ...(open && { security: [] }),
    parameters: checks.flatMap(parametersOf),
    ...(json !== undefined && {
      requestBody: { required: true, content: { 'application/json': { schema: schemaOf(json.schema, 'input') } } },
    }),
    ...(operation.rawBody !== undefined && {
      requestBody: {
        required: true,
        description: operation.rawBody.description,
        content: Object.fromEntries(operation.rawBody.mediaTypes.map((type) => [type, {}])),
      },
    }),
    responses: {
      [String(ok.status ?? 200)]: {
        description: ok.description,
        content: {
          ...(ok.body !== undefined && { 'application/json': { schema: schemaOf(ok.body, 'output') } }),
          ...Object.fromEntries(
            Object.entries(ok.alsoAs ?? {}).map(([type, what]) => [type, { schema: { description: what } }]),
          ),
        },
      },
      ...errorResponses(refusals),
    },
  };
}

/** A query or path validator's members, one parameter each, with the constraints the validator enforces. */
function parametersOf(check: Validation) {
  if (check.target === 'json') return [];
  if (check.target !== 'query' && check.target !== 'param') throw new Error(`no OpenAPI form for ${check.target}`);
  const schema = schemaOf(check.schema, 'input');
  const members = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(members).map(([name, { description, ...constraints }]) => ({
    name,
    in: check.target === 'param' ? 'path' : 'query',
    required: check.target === 'param' || required.has(name),
    ...(description !== undefined && { description }),
    schema: constraints,
  }));
}

/**
 * A zod schema as JSON Schema 2020-12, OpenAPI 3.1's dialect: as a client sends it (`input`: before defaults and
 * transforms) or as the server answers (`output`).
 */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, override: withoutSafeIntegerBounds });
  return json;
}

/** zod bounds every integer by ±(2^53 - 1), which JSON numbers imply anyway: left out, the constraints that matter show. */
function withoutSafeIntegerBounds({ jsonSchema }: { jsonSchema: JsonSchema }) {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}
