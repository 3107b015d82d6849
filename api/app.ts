import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { classifyDbError, type DbFailure } from '../db/errors.ts';
import type { AppDeps, Env } from './env.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { refuseWhenBehind, reportLag } from './middleware/analysis-lag.ts';
import { auth, guard, OPEN_PATHS } from './middleware/guard.ts';
import { rateLimit, TokenBuckets } from './middleware/rate-limit.ts';
import { alertRoutes } from './routes/alerts.ts';
import { analysisRoutes } from './routes/analysis.ts';
import { eventsRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { ingestRoutes } from './routes/ingest.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { otlpRoutes } from './routes/otlp.ts';
import { referenceRoutes } from './routes/reference.ts';
import { serverRoutes } from './routes/servers.ts';
import { spanRoutes } from './routes/span.ts';
import { Folder, type Folding } from './services/fold.ts';
import { ProcessMetrics } from './services/process-metrics.ts';
import { ServiceError } from './services/service-error.ts';

const api = new Hono<Env>()
  .route('/', healthRoutes)
  .route('/', ingestRoutes)
  .route('/', eventsRoutes)
  .route('/', spanRoutes)
  .route('/', serverRoutes)
  .route('/', analysisRoutes)
  .route('/', alertRoutes);

/** The typed shape of the API, for the `hc` client in web/. */
export type AppType = typeof api;

/**
 * The dashboard runs only its own scripts, from its own origin, in no frame; styles may be inline (charts set them).
 */
const SECURE_HEADERS = {
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
};
const CORS_HEADERS = ['Authorization', 'Content-Type', 'Content-Encoding'];

/**
 * Builds the whole application around its dependencies; the server entry point and every test call this. Without a
 * folder of its own it folds what it ingests with one made here; without process metrics it keeps its own.
 */
export function createApp(
  given: Omit<AppDeps, 'folder' | 'processMetrics'> & { folder?: Folding; processMetrics?: ProcessMetrics },
) {
  const processMetrics = given.processMetrics ?? new ProcessMetrics();
  const folder =
    given.folder ??
    new Folder(given.store, {
      inlineReplayMax: given.config.inlineReplayMax,
      onFold: (seconds) => processMetrics.folds.observe(seconds),
    });
  const deps: AppDeps = { ...given, folder, processMetrics };
  const app = new Hono<Env>();
  app.use('*', requestId(), secureHeaders(SECURE_HEADERS), async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('/api/*', guard);
  const { allowedOrigins, rateLimits } = deps.config;
  if (allowedOrigins.length > 0) {
    // What --allow-origin says: those origins may call the API from a browser, preflight included.
    app.use('/api/*', cors({ origin: [...allowedOrigins], allowHeaders: CORS_HEADERS, maxAge: 600 }));
  }
  const limitIngest = rateLimit(new TokenBuckets(rateLimits.ingest), 'ingest');
  const limitReads = rateLimit(new TokenBuckets(rateLimits.reads), 'API');
  app.use('/api/v1/*', (c, next) => (c.req.path === '/api/v1/ingest' ? limitIngest(c, next) : limitReads(c, next)));
  app.use('/api/v1/*', async (c, next) => (OPEN_PATHS.has(c.req.path) ? next() : auth(c, next)));
  app.post('/api/v1/ingest', refuseWhenBehind);
  app.use('/api/v1/*', (c, next) =>
    c.req.method === 'GET' && !OPEN_PATHS.has(c.req.path) ? reportLag(c, next) : next(),
  );
  app.route('/api/v1', api);
  // The API's description, read from the app's routes when first asked for, and its reference page.
  app.route('/', referenceRoutes(app));
  // OTLP/HTTP's standard path, beside the API: the guard, the ingest bucket and the tokens POST /api/v1/ingest has.
  app.use('/v1/traces', guard, limitIngest, auth);
  app.post('/v1/traces', refuseWhenBehind);
  app.route('/', otlpRoutes);
  // Prometheus's conventional path, beside the API: its guard, its read bucket and its admin token.
  app.use('/metrics', guard, limitReads, auth);
  app.route('/', metricsRoutes);
  app.notFound((c) => {
    const error = new ApiError('not_found', 'no such endpoint', {
      fix: 'GET /api/v1/openapi.json lists every route; /api/docs shows it as a page.',
    });
    return c.json(error.toBody(), error.status);
  });
  app.onError((err, c) => {
    const error = toApiError(err);
    if (error.code === 'internal') console.error(`[${c.var.requestId}]`, err);
    else if (!(err instanceof ServiceError) && error.status >= 500) {
      // The store failing is the operator's business: one line each, without the stack.
      console.error(`[${c.var.requestId}] ${error.code}: ${err.message}`);
    }
    if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
    return c.json(error.toBody(), error.status);
  });
  return app;
}

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** What a failing store costs a request: every error db/errors.ts classifies, and how long to wait before again. */
const STORE_FAILURES: Record<DbFailure, () => ApiError> = {
  unavailable: () =>
    new ApiError('store_unavailable', 'the database connection was lost or refused; this request was not completed', {
      fix: 'Send it again after Retry-After. If it persists, check that the database server is running and reachable.',
      retryAfterSeconds: 2,
    }),
  conflict: () =>
    new ApiError('store_busy', 'the database was busy with a conflicting write; nothing of this request was stored', {
      fix: 'Send the same request again after Retry-After.',
      retryAfterSeconds: 1,
    }),
  full: () =>
    new ApiError('store_full', 'the store has no disk space left; nothing of this request was stored', {
      fix: "Free disk space on the store's volume (or grow it). The server takes writes again by itself, no restart.",
      retryAfterSeconds: 60,
    }),
  read_only: () =>
    new ApiError('store_read_only', 'the store is read-only; nothing of this request was stored', {
      fix: 'Make the store writable again (its file or mount, or point DATABASE_URL at the primary, not a standby). The server takes writes again by itself, no restart.',
      retryAfterSeconds: 60,
    }),
};

/**
 * Our error for anything a handler threw: a refusal as it is (the HTTP layer's own, or a service's ServiceError with
 * the same code, fix, field and Retry-After), a failing store as it costs, anything else a bug. The one place a
 * service's error becomes an HTTP answer.
 */
export function toApiError(err: Error): ApiError {
  if (err instanceof ServiceError) return ApiError.from(err);
  if (err instanceof HTTPException) {
    const code = STATUS_CODES[err.status];
    if (code !== undefined) return new ApiError(code, err.message || 'the request was refused');
  }
  const failure = classifyDbError(err);
  if (failure !== null) return STORE_FAILURES[failure]();
  return new ApiError('internal', 'the server failed to answer this request', {
    fix: 'Sending it again will not help: this is a fault of the server. Its log has the details under the X-Request-Id of this answer.',
  });
}
