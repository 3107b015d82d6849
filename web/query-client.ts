import { QueryClient } from '@tanstack/react-query';
import { shareEqual } from './structural-sharing.ts';

/** One place for retry and freshness policy. A refusal (4xx) is not retried: the product's own rule. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      retry: (failures, error) => !(error instanceof ApiFailure && !error.retryable) && failures < 3,
      // Answers hold records keyed by names from logs (servers, clients, kinds): a `__proto__` must stay a key.
      structuralSharing: shareEqual,
    },
  },
});

/** An API error body turned into something a component can show: the message and whether retrying helps. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    /** What to change so that the request succeeds, when the API says. */
    readonly fix: string | null = null,
    readonly retryAfterSeconds: number | null = null,
    /** The input member at fault, as the API names it (`overrides.0.kind`). */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: {
    code: string;
    message: string;
    retryable: boolean;
    fix?: string;
    retryAfterSeconds?: number;
    field?: string;
  };
}

/**
 * Whether an answer on screen was read while the analysis trailed the stored events (`Lens-Analysis-Lag-Ms` above
 * 0, as right after an upload): its counts may still rise. /health is then asked soon and more often, and once it
 * says the analysis caught up every answer is read again, so a screen never keeps the numbers of a fold in progress.
 */
let readWhileLagging = false;
/** How soon, and then how often, /health is asked while an answer on screen was read behind the analysis. */
export const SETTLE_CHECK_MS = 1_000;

export function readBehindAnalysis(): boolean {
  return readWhileLagging;
}

function noteAnalysisLag(response: Response): void {
  if (readWhileLagging || Number(response.headers.get('lens-analysis-lag-ms') ?? 0) === 0) return;
  readWhileLagging = true;
  setTimeout(() => void queryClient.refetchQueries({ queryKey: ['health'] }), SETTLE_CHECK_MS);
}

/** Told each /health answer's lag: at 0 after an answer read behind, every other query is read again. */
export function settleAnalysis(lagMs: number): void {
  if (!readWhileLagging || lagMs > 0) return;
  readWhileLagging = false;
  void queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'health' });
}

export async function unwrap<T>(response: Response & { json(): Promise<T> }): Promise<T> {
  noteAnalysisLag(response);
  if (response.ok) return response.json();
  const body = (await response.json().catch(() => null)) as ErrorBody | null;
  const error = body?.error;
  throw new ApiFailure(
    error?.message ?? (response.statusText || `HTTP ${response.status}`),
    error?.code ?? 'http_error',
    error?.retryable ?? response.status >= 500,
    error?.fix ?? null,
    error?.retryAfterSeconds ?? null,
    error?.field ?? null,
  );
}

export interface FailureView {
  message: string;
  retryable: boolean;
  fix: string | null;
}

/** Any error a query can end with, in words: an API answer, or no answer at all (the server is unreachable). */
export function describeFailure(error: unknown): FailureView {
  if (error instanceof ApiFailure) return { message: error.message, retryable: error.retryable, fix: error.fix };
  if (error instanceof TypeError) {
    return { message: 'the Refusal Lens server did not answer', retryable: true, fix: 'Check that it is running.' };
  }
  return { message: error instanceof Error ? error.message : String(error), retryable: true, fix: null };
}
