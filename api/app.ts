import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import type { AppDeps, Env } from './env.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { auth, guard } from './middleware/guard.ts';
import { alertRoutes } from './routes/alerts.ts';
import { analysisRoutes } from './routes/analysis.ts';
import { eventsRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { ingestRoutes } from './routes/ingest.ts';
import { serverRoutes } from './routes/servers.ts';

const api = new Hono<Env>()
  .route('/', healthRoutes)
  .route('/', ingestRoutes)
  .route('/', eventsRoutes)
  .route('/', serverRoutes)
  .route('/', analysisRoutes)
  .route('/', alertRoutes);

/** The typed shape of the API, for the `hc` client in web/. */
export type AppType = typeof api;

/** Builds the whole application around its dependencies; the server entry point and every test call this. */
export function createApp(deps: AppDeps) {
  const app = new Hono<Env>();
  app.use('*', requestId(), secureHeaders(), async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('/api/*', guard);
  app.use('/api/v1/*', async (c, next) => (c.req.path === '/api/v1/health' ? next() : auth(c, next)));
  app.route('/api/v1', api);
  app.notFound((c) => {
    const error = new ApiError('not_found', 'no such endpoint', { fix: 'See the README for the API routes.' });
    return c.json(error.toBody(), error.status);
  });
  app.onError((err, c) => {
    const error = toApiError(err);
    if (error.code === 'internal') console.error(`[${c.var.requestId}]`, err);
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

function toApiError(err: Error): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    const code = STATUS_CODES[err.status];
    if (code !== undefined) return new ApiError(code, err.message || 'the request was refused');
  }
  return new ApiError('internal', 'the server failed to answer this request', {
    fix: 'Retry shortly; if it persists, the server log has the request id.',
    retryAfterSeconds: 1,
  });
}
