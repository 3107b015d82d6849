import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../query-client.ts';
import { backoffMs, isTransient, withRetry } from './send.ts';

const transient = new ApiFailure('the store is busy', 'unavailable', true);
const refusal = new ApiFailure('the body is too large', 'payload_too_large', false);

function failing(errors: unknown[]) {
  let calls = 0;
  const attempt = async () => {
    const error = errors[calls++];
    if (error !== undefined) throw error;
    return 'ok';
  };
  return { attempt, calls: () => calls };
}

describe('withRetry', () => {
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };

  it('retries transient failures with growing waits', async () => {
    sleeps.length = 0;
    const run = failing([transient, new TypeError('Failed to fetch')]);
    await expect(withRetry(run.attempt, { sleep, baseMs: 100 })).resolves.toBe('ok');
    expect(run.calls()).toBe(3);
    expect(sleeps).toEqual([100, 200]);
  });

  it('gives up after three retries', async () => {
    const run = failing([transient, transient, transient, transient, transient]);
    await expect(withRetry(run.attempt, { sleep })).rejects.toBe(transient);
    expect(run.calls()).toBe(4);
  });

  it('does not retry a refusal', async () => {
    const run = failing([refusal]);
    await expect(withRetry(run.attempt, { sleep })).rejects.toBe(refusal);
    expect(run.calls()).toBe(1);
  });
});

describe('isTransient and backoffMs', () => {
  it('reads the API verdict and honours Retry-After', () => {
    expect(isTransient(transient)).toBe(true);
    expect(isTransient(refusal)).toBe(false);
    expect(isTransient(new Error('bug'))).toBe(false);
    expect(backoffMs(2, new ApiFailure('slow down', 'throttled', true, null, 7), 500)).toBe(7000);
    expect(backoffMs(10, transient, 500)).toBe(30_000);
  });
});
