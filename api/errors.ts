import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type ErrorCode, ServiceError } from './services/service-error.ts';

export type { ErrorCode } from './services/service-error.ts';

/** The HTTP status of each code of the closed set (api/services/service-error.ts says which are retryable). */
const STATUS = {
  invalid_request: 400,
  invalid_discovery: 400,
  invalid_encoding: 400,
  secret_required: 400,
  unauthenticated: 401,
  foreign_origin: 403,
  forbidden: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  analysis_behind: 503,
  store_unavailable: 503,
  store_busy: 503,
  store_full: 507,
  store_read_only: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

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

/** The one mapping of a refusal to HTTP: its status and the JSON body every error answer has. */
export function httpStatusOf(error: ServiceError): ContentfulStatusCode {
  return statusOfCode(error.code);
}

/** The status every refusal of `code` answers with; the OpenAPI document groups a route's refusals by it. */
export function statusOfCode(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

export function errorBodyOf(error: ServiceError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.fix !== undefined && { fix: error.fix }),
      retryable: error.retryable,
      ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
      ...(error.field !== undefined && { field: error.field }),
    },
  };
}

/**
 * A refusal of the HTTP layer itself (middleware, the validator, routes). Decision: it stays, as a ServiceError with
 * the HTTP answer attached, rather than services throwing it: services (api/services/) are transport-free and throw
 * ServiceError, which onError turns into an ApiError (toApiError in api/app.ts) and answers with the same status and
 * body. One set of codes, one body shape, one mapping (httpStatusOf, errorBodyOf).
 */
export class ApiError extends ServiceError {
  /** A service's refusal as the HTTP layer answers it: the same code, message, fix, field and Retry-After. */
  static from(error: ServiceError): ApiError {
    if (error instanceof ApiError) return error;
    const { fix, field, retryAfterSeconds } = error;
    return new ApiError(error.code, error.message, { fix, field, retryAfterSeconds, cause: error });
  }

  get status(): ContentfulStatusCode {
    return httpStatusOf(this);
  }

  toBody(): ErrorBody {
    return errorBodyOf(this);
  }
}
