/**
 * The closed set of ways this server says no, and whether the same request can succeed later: the product's own
 * rule, applied to itself. Transport-free: the HTTP status of each code and the body are api/errors.ts's business,
 * the CLI's one line is api/cli/main.ts's.
 */
export const ERROR_CODES = {
  invalid_request: { retryable: false },
  invalid_discovery: { retryable: false },
  invalid_encoding: { retryable: false },
  /** A saved secret (a PagerDuty routing key) would go to a destination it was never given for: send it again. */
  secret_required: { retryable: false },
  unauthenticated: { retryable: false },
  foreign_origin: { retryable: false },
  forbidden: { retryable: false },
  not_found: { retryable: false },
  payload_too_large: { retryable: false },
  unsupported_media_type: { retryable: false },
  rate_limited: { retryable: true },
  /** A fault of this server: the same request fails the same way. */
  internal: { retryable: false },
  unavailable: { retryable: true },
  /** The analysis trails the stored events past --max-analysis-lag: ingest waits until it catches up. */
  analysis_behind: { retryable: true },
  /** The database connection was lost or refused (restart, failover): it comes back by itself. */
  store_unavailable: { retryable: true },
  /** A concurrent write got in the way (serialization failure, deadlock, busy): at once again can succeed. */
  store_busy: { retryable: true },
  /** No disk space for the store: succeeds again once an operator frees some, hence a long Retry-After. */
  store_full: { retryable: true },
  /** The store accepts no writes: succeeds again once an operator makes it writable, hence a long Retry-After. */
  store_read_only: { retryable: true },
} as const satisfies Record<string, { retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ServiceErrorOptions {
  /** What to change so that the request succeeds. */
  fix?: string;
  /** The offending input member, when one is at fault. */
  field?: string;
  /** When retryable: how long to wait first. */
  retryAfterSeconds?: number;
}

/**
 * What a service throws when it refuses (bad input, not ready yet): a code of the closed set and what the caller
 * can do about it, with no transport in it. Services never import the HTTP layer (Biome's noRestrictedImports in
 * biome.json); each transport maps this once: the app's onError (api/app.ts, via api/errors.ts) and the CLI's main.
 * The HTTP layer's own refusals (middleware, validator, routes) throw ApiError, which is a ServiceError too, so there
 * is still one set of codes and one body shape.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly fix: string | undefined;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: ServiceErrorOptions & { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.fix = options.fix;
    this.field = options.field;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** Whether sending the same request again can succeed. */
  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }
}
