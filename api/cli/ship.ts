import { gzipSync } from 'node:zlib';
import type { IngestReport } from '../services/ingest.ts';
import { CliError } from './cli-error.ts';

const TRANSIENT_BUDGET = 3;

/**
 * Sends one NDJSON batch and follows the product's own rules for the answer: a refusal (4xx) stops at once, a
 * throttle waits for Retry-After, a transient failure is retried with backoff at most three times.
 */
export async function shipBatch(url: string, ndjson: string, token: string | null): Promise<IngestReport> {
  const body = gzipSync(ndjson, { level: 1 });
  let transientFailures = 0;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(`${url}/api/v1/ingest`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          'content-encoding': 'gzip',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
      });
    } catch (error) {
      const detail = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
      if (++transientFailures > TRANSIENT_BUDGET) throw new CliError(`cannot reach ${url}: ${detail}`);
      await sleep(backoff(transientFailures));
      continue;
    }
    if (response.ok) return (await response.json()) as IngestReport;
    const problem = await readProblem(response);
    const retryAfter = Number(response.headers.get('retry-after') ?? problem.retryAfterSeconds ?? Number.NaN);
    if (response.status === 429 || (problem.retryable && response.status < 500)) {
      await sleep((Number.isFinite(retryAfter) ? retryAfter : 1) * 1000);
      continue;
    }
    if (response.status >= 500 && ++transientFailures <= TRANSIENT_BUDGET) {
      await sleep(Number.isFinite(retryAfter) ? retryAfter * 1000 : backoff(transientFailures));
      continue;
    }
    const fix = problem.fix ? ` ${problem.fix}` : '';
    throw new CliError(`the server refused the batch (${response.status} ${problem.code}): ${problem.message}.${fix}`);
  }
}

interface Problem {
  code: string;
  message: string;
  fix?: string;
  retryable?: boolean;
  retryAfterSeconds?: number;
}

async function readProblem(response: Response): Promise<Problem> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: Problem };
    if (body.error?.code) return body.error;
  } catch {
    // not our error body: a proxy in between, most likely
  }
  return { code: 'http_error', message: text.slice(0, 200) || response.statusText, retryable: response.status >= 500 };
}

function backoff(attempt: number): number {
  return 500 * 2 ** (attempt - 1) * (0.5 + Math.random());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
