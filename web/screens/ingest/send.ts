import { ApiFailure } from '../../query-client.ts';

/** Retries after a transient failure, at most this many times: the product's own rule (see query-client.ts). */
export const MAX_RETRIES = 3;

/** A failure that may pass: an API answer that says so (5xx, 429), or no answer at all. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ApiFailure) return error.retryable;
  return error instanceof TypeError;
}

/** Exponential backoff from `baseMs`, or what the API asked for (`Retry-After`), capped at 30 s. */
export function backoffMs(retry: number, error: unknown, baseMs: number): number {
  const asked = error instanceof ApiFailure ? error.retryAfterSeconds : null;
  return Math.min(asked === null ? baseMs * 2 ** retry : asked * 1000, 30_000);
}

export interface RetryOptions {
  baseMs?: number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (retry: number, error: unknown) => void;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `attempt`, and again after a transient failure, up to MAX_RETRIES times; a refusal is thrown at once. */
export async function withRetry<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { baseMs = 500, sleep = wait, onRetry } = options;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (retry >= MAX_RETRIES || !isTransient(error)) throw error;
      onRetry?.(retry + 1, error);
      await sleep(backoffMs(retry, error, baseMs));
    }
  }
}
