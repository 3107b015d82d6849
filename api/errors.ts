import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * The closed set of ways this API says no. Each names its status and whether the same request can succeed later:
 * the product's own rule, applied to itself.
 */
export const ERRORS = {
  invalid_request: { status: 400, retryable: false },
  invalid_discovery: { status: 400, retryable: false },
  invalid_encoding: { status: 400, retryable: false },
  unauthenticated: { status: 401, retryable: false },
  foreign_origin: { status: 403, retryable: false },
  forbidden: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  rate_limited: { status: 429, retryable: true },
  /** A fault of this server: the same request fails the same way. */
  internal: { status: 500, retryable: false },
  unavailable: { status: 503, retryable: true },
  /** The analysis trails the stored events past --max-analysis-lag: ingest waits until it catches up. */
  analysis_behind: { status: 503, retryable: true },
  /** The database connection was lost or refused (restart, failover): it comes back by itself. */
  store_unavailable: { status: 503, retryable: true },
  /** A concurrent write got in the way (serialization failure, deadlock, busy): at once again can succeed. */
  store_busy: { status: 503, retryable: true },
  /** No disk space for the store: succeeds again once an operator frees some, hence a long Retry-After. */
  store_full: { status: 507, retryable: true },
  /** The store accepts no writes: succeeds again once an operator makes it writable, hence a long Retry-After. */
  store_read_only: { status: 503, retryable: true },
} as const satisfies Record<string, { status: ContentfulStatusCode; retryable: boolean }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    /** What to change so that the request succeeds. */
    fix?: string;
    /** Whether sending the same request again can succeed. */
    retryable: boolean;
    /** When retryable: how long to wait first (also sent as Retry-After). */
    retryAfterSeconds?: number;
    /** The offending input member, when one is at fault. */
    field?: string;
  };
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fix: string | undefined;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fix?: string; field?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.code = code;
    this.fix = options.fix;
    this.field = options.field;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): ContentfulStatusCode {
    return ERRORS[this.code].status;
  }

  toBody(): ErrorBody {
    const { retryable } = ERRORS[this.code];
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.fix !== undefined && { fix: this.fix }),
        retryable,
        ...(this.retryAfterSeconds !== undefined && { retryAfterSeconds: this.retryAfterSeconds }),
        ...(this.field !== undefined && { field: this.field }),
      },
    };
  }
}
