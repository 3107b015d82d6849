import { QueryClient } from '@tanstack/react-query';

/** One place for retry and freshness policy. A refusal (4xx) is not retried: the product's own rule. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      retry: (failures, error) => !(error instanceof ApiFailure && !error.retryable) && failures < 3,
    },
  },
});

/** An API error body turned into something a component can show: the message and whether retrying helps. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export async function unwrap<T>(response: Response & { json(): Promise<T> }): Promise<T> {
  if (response.ok) return response.json();
  const body = (await response.json().catch(() => null)) as {
    error?: { code: string; message: string; retryable: boolean };
  } | null;
  const error = body?.error;
  throw new ApiFailure(
    error?.message ?? response.statusText,
    error?.code ?? 'http_error',
    error?.retryable ?? response.status >= 500,
  );
}
