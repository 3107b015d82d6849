import { gzipSync } from 'node:zlib';
import type { IngestReport } from '../services/ingest.ts';
import { CliError } from './cli-error.ts';

/**
 * How long one batch is retried by default (`ingest --give-up-after`), from its first failure: long enough for a
 * database restart or failover, short enough that a wrong URL does not look like a hang.
 */
export const RETRY_BUDGET_MS = 5 * 60_000;
/** An attempt the server does not answer is given up after the budget's rest, but never sooner than this. */
const ATTEMPT_TIMEOUT_MIN_MS = 10_000;
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
 * until the batch has been failing for `budgetMs` (`waitedMs`: how long it has, waits and attempts alike).
 */
export function nextWait(
  attempt: number,
  failed: FailedAttempt,
  {
    waitedMs = 0,
    budgetMs = RETRY_BUDGET_MS,
    random = Math.random,
    now = Date.now(),
  }: { waitedMs?: number; budgetMs?: number; random?: () => number; now?: number } = {},
): number | null {
  if (isRefusal(failed)) return null;
  const { status } = failed;
  const remaining = budgetMs - waitedMs;
  if (remaining <= 0) return null;
  const backoff = Math.min(LONGEST_BACKOFF_MS, FIRST_WAIT_MS * 2 ** (attempt - 1));
  const floor = Math.max(retryAfterMs(failed.retryAfter, now), status === 507 ? STORE_FULL_WAIT_MS : 0);
  return Math.min(remaining, Math.round(Math.max(backoff, floor) * (1 + 0.2 * random())));
}

/** An answer that sending the batch again cannot change: a 4xx other than 429, a 5xx our server calls final. */
function isRefusal({ status, retryable }: FailedAttempt): boolean {
  return (status >= 400 && status < 500 && status !== 429) || (status >= 500 && retryable === false);
}

/** Retry-After in milliseconds (0 when absent or unreadable): delay-seconds or an HTTP date. */
function retryAfterMs(value: string | null | undefined, now: number): number {
  if (!value) return 0;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - now) : 0;
}

/** The server refused a batch (a 4xx, or a fault it calls final): sending the same batch again cannot help. */
export class BatchRefused extends CliError {}

/** Where batches go: the server, its token, and how long a batch may keep failing before the shipper stops. */
export interface ShipTarget {
  url: string;
  token: string | null;
  giveUpAfterMs: number;
}

/**
 * Sends one NDJSON batch and follows the product's own rules for the answer (nextWait): a refusal (4xx) or a fault
 * of the server stops at once; no answer, a throttle, an unavailable store or a full disk is waited out, until the
 * batch has been failing for `giveUpAfterMs`. An attempt nobody answers is given up too, so a server that takes the
 * connection and never replies is no hang either.
 */
export async function shipBatch(
  target: ShipTarget,
  ndjson: string,
  /** `?format=…` for an access log (api/cli/log-format.ts); empty for native NDJSON. */
  query = '',
): Promise<IngestReport> {
  const { url, token, giveUpAfterMs } = target;
  const body = gzipSync(ndjson, { level: 1 });
  let failingSince: number | undefined;
  const budget = (now: number) => ({ waitedMs: now - (failingSince ?? now), budgetMs: giveUpAfterMs, now });
  for (let attempt = 1; ; attempt++) {
    const sentAt = Date.now();
    const timeoutMs = Math.max(ATTEMPT_TIMEOUT_MIN_MS, giveUpAfterMs - (sentAt - (failingSince ?? sentAt)));
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
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      failingSince ??= sentAt;
      const detail = noAnswer(error, timeoutMs);
      const wait = nextWait(attempt, { status: 0 }, budget(Date.now()));
      if (wait === null) throw new CliError(`cannot reach ${url}: ${detail} (${gaveUp(Date.now() - failingSince)})`);
      await pause(wait, `cannot reach ${url}: ${detail}`);
      continue;
    }
    if (response.ok) return (await response.json()) as IngestReport;
    const problem = await readProblem(response);
    const retryAfter = response.headers.get('retry-after') ?? problem.retryAfterSeconds?.toString() ?? null;
    const answer = `${response.status} ${problem.code}`;
    failingSince ??= sentAt;
    const failed = { status: response.status, retryAfter, retryable: problem.retryable };
    const wait = nextWait(attempt, failed, budget(Date.now()));
    if (wait === null) {
      const fix = problem.fix ? ` ${problem.fix}` : '';
      if (isRefusal(failed))
        throw new BatchRefused(`the server refused the batch (${answer}): ${problem.message}.${fix}`);
      throw new CliError(
        `the server kept answering ${answer}: ${problem.message}.${fix} (${gaveUp(Date.now() - failingSince)})`,
      );
    }
    await pause(wait, `the server answered ${answer}: ${problem.message}`);
  }
}

/** Why an attempt got no answer, in a few words. */
function noAnswer(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${duration(timeoutMs)}`;
  return error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
}

function gaveUp(ms: number): string {
  return `gave up after ${duration(ms)} of trying; --give-up-after sets how long`;
}

/** Waits, saying why on stderr: a wait of minutes must not look like a hang. */
async function pause(ms: number, why: string): Promise<void> {
  process.stderr.write(`lens ingest: ${why}; sending the batch again in ${Math.ceil(ms / 1000)} s\n`);
  await sleep(ms);
}

function duration(ms: number): string {
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
