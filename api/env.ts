import type { Store } from '../db/runner.ts';
import type { ProxyRoute } from '../shared/proxy-logs/routes.ts';
import type { RateLimit } from './middleware/rate-limit.ts';
import type { Folding } from './services/fold.ts';
import { INLINE_REPLAY_MAX } from './services/gate-maintenance.ts';
import type { ProcessMetrics } from './services/process-metrics.ts';

export interface AppConfig {
  /** Largest accepted request body in bytes, before and after gzip decoding. */
  maxBodyBytes: number;
  /** Origins allowed to call the API from a browser, besides the server's own. */
  allowedOrigins: readonly string[];
  /**
   * Host names the server answers to (Host header), which defeats DNS rebinding; null (any) only when it listens
   * beyond loopback, where a token is required, and no --allow-host was given.
   */
  allowedHosts: readonly string[] | null;
  /** Bearer token required on every API call; required whenever the server listens beyond loopback. */
  token: string | null;
  /**
   * A second bearer token, for log shippers: it may only POST /api/v1/ingest (the health route needs none). Only
   * meaningful with `token` set, which alone reads and edits everything else.
   */
  ingestToken: string | null;
  /**
   * `HOST[:PORT]` entries alert targets may reach although their address is loopback, private, link-local or
   * otherwise internal (`--allow-target`, LENS_ALLOW_TARGETS). Empty: public addresses only.
   */
  allowedTargets: readonly string[];
  /** Per caller (token or peer address): ingest batches, and every other API request. */
  rateLimits: { ingest: RateLimit; reads: RateLimit };
  /** Which server an access-log line belongs to, by host and path prefix (`--proxy-map FILE`). */
  proxyRoutes: readonly ProxyRoute[];
  /**
   * A gate replay of more stored events than this runs behind the batch's commit instead of inside it
   * (api/services/gate-maintenance.ts INLINE_REPLAY_MAX; tests lower it).
   */
  inlineReplayMax: number;
  /** Past this analysis lag, ingest answers 503 with Retry-After (`--max-analysis-lag`, api/middleware/analysis-lag.ts). */
  maxAnalysisLagMs: number;
  /**
   * Label sets a family of GET /metrics shows at most; the rest are summed into one `other` set
   * (`--metrics-label-sets`, shared/metrics/label-cap.ts).
   */
  metricsLabelSets: number;
}

export interface AppDeps {
  store: Store;
  clock: () => number;
  config: AppConfig;
  /** Folds what ingest stored into the counts, behind the commit (api/services/fold.ts). */
  folder: Folding;
  /** What this process did since it started, for GET /metrics (api/services/process-metrics.ts). */
  processMetrics: ProcessMetrics;
}

export type Env = {
  Variables: {
    deps: AppDeps;
    requestId: string;
  };
};

export const DEFAULT_CONFIG: AppConfig = {
  maxBodyBytes: 16 * 1024 * 1024,
  allowedOrigins: [],
  allowedHosts: ['127.0.0.1', 'localhost', '[::1]'],
  token: null,
  ingestToken: null,
  allowedTargets: [],
  // A shipper sends a batch of thousands of lines at a time; a dashboard page asks ~10 questions per refresh.
  rateLimits: { ingest: { burst: 120, perSecond: 60 }, reads: { burst: 600, perSecond: 200 } },
  proxyRoutes: [],
  inlineReplayMax: INLINE_REPLAY_MAX,
  maxAnalysisLagMs: 300_000,
  // Ample for a federation's servers; Prometheus keeps a series per set, and a scrape stays a few hundred KB.
  metricsLabelSets: 500,
};
