import { gzipSync } from 'node:zlib';
import type { IngestReport } from '../services/ingest.ts';
import { CliError } from './cli-error.ts';

/** How long one batch is retried, counting the waits: long enough for a database restart or failover. */
export const RETRY_BUDGET_MS = 10 * 60_000;
const FIRST_WAIT_MS = 1_000;
const LONGEST_BACKOFF_MS = 60_000;
/** A full disk (507) waits for an operator: never sooner than this, whatever the answer says. */
const STORE_FULL_WAIT_MS = 60_000;

/** An attempt that did not succeed: an HTTP status (0: no answer at all), its Retry-After, our body's verdict. */
export interface FailedAttempt {
  status: number;
  /** The Retry-After header as sent: seconds or an HTTP date. */
  retryAfter?: string | null;
  /** `retryable` of our error body, when the answer had one. */
  retryable?: boolean;
}

/**
 * How long to wait before sending a batch again after its `attempt`-th try (from 1) failed, or null to stop:
 * - a 4xx other than 429 never: the request itself is wrong;
 * - a 5xx our error body calls not retryable never: a fault of the server, which the same request meets again;
 * - otherwise (429, 503, 507, other 5xx, no answer) a backoff from 1 s doubling up to 60 s, with up to 20% jitter,
 *   never shorter than Retry-After, and for 507 never shorter than a minute;
 * until the waits would pass RETRY_BUDGET_MS (`waitedMs` is the sum of the waits so far).
 */
export function nextWait(
  attempt: number,
  failed: FailedAttempt,
  {
    waitedMs = 0,
    random = Math.random,
    now = Date.now(),
  }: { waitedMs?: number; random?: () => number; now?: number } = {},
): number | null {
  const { status } = failed;
  if (status >= 400 && status < 500 && status !== 429) return null;
  if (status >= 500 && failed.retryable === false) return null;
  const remaining = RETRY_BUDGET_MS - waitedMs;
  if (remaining <= 0) return null;
  const backoff = Math.min(LONGEST_BACKOFF_MS, FIRST_WAIT_MS * 2 ** (attempt - 1));
  const floor = Math.max(retryAfterMs(failed.retryAfter, now), status === 507 ? STORE_FULL_WAIT_MS : 0);
  return Math.min(remaining, Math.round(Math.max(backoff, floor) * (1 + 0.2 * random())));
}

/** Retry-After in milliseconds (0 when absent or unreadable): delay-seconds or an HTTP date. */
function retryAfterMs(value: string | null | undefined, now: number): number {
  if (!value) return 0;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - now) : 0;
}

/**
 * Sends one NDJSON batch and follows the product's own rules for the answer (nextWait): a refusal (4xx) or a fault
 * of the server stops at once; a throttle, an unavailable store or a full disk is waited out, for minutes.
 */
export async function shipBatch(
  url: string,
  ndjson: string,
  token: string | null,
  /** `?format=…` for an access log (api/cli/log-format.ts); empty for native NDJSON. */
  query = '',
): Promise<IngestReport> {
  const body = gzipSync(ndjson, { level: 1 });
  let waitedMs = 0;
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${url}/api/v1/ingest${query}`, {
        method: 'POST',
        headers: {
          'content-type': query === '' ? 'application/x-ndjson' : 'text/plain',
          'content-encoding': 'gzip',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
      });
    } catch (error) {
      const detail = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
      const wait = nextWait(attempt, { status: 0 }, { waitedMs });
      if (wait === null) throw new CliError(`cannot reach ${url}: ${detail} (gave up after ${minutes(waitedMs)})`);
      waitedMs += await pause(wait, `cannot reach ${url}: ${detail}`);
      continue;
    }
    if (response.ok) return (await response.json()) as IngestReport;
    const problem = await readProblem(response);
    const retryAfter = response.headers.get('retry-after') ?? problem.retryAfterSeconds?.toString() ?? null;
    const answer = `${response.status} ${problem.code}`;
    const wait = nextWait(attempt, { status: response.status, retryAfter, retryable: problem.retryable }, { waitedMs });
    if (wait === null) {
      const fix = problem.fix ? ` ${problem.fix}` : '';
      const gaveUp = waitedMs > 0 ? ` (gave up after ${minutes(waitedMs)} of retries)` : '';
      throw new CliError(`the server refused the batch (${answer}): ${problem.message}.${fix}${gaveUp}`);
    }
    waitedMs += await pause(wait, `the server answered ${answer}: ${problem.message}`);
  }
}

/** Waits, saying why on stderr: a wait of minutes must not look like a hang. */
async function pause(ms: number, why: string): Promise<number> {
  process.stderr.write(`lens ingest: ${why}; sending the batch again in ${Math.ceil(ms / 1000)} s\n`);
  await sleep(ms);
  return ms;
}

function minutes(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`;
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
