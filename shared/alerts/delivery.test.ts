import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../retry-after.ts';
import { MAX_ATTEMPTS, nextStep, TRANSIENT_BUDGET } from './delivery.ts';

const NOW = Date.parse('2026-11-02T10:00:00Z');
const fresh = { attempts: 0, transientFailures: 0 };

describe('notification delivery rules', () => {
  it('is done on any 2xx', () => {
    expect(nextStep({ status: 204, retryAfter: null }, fresh, NOW, 1000).status).toBe('delivered');
  });

  it('never retries a refusal (4xx other than 408 and 429), nor a redirect', () => {
    for (const status of [400, 401, 403, 404, 410, 422, 301]) {
      expect(nextStep({ status, retryAfter: null }, fresh, NOW, 1000)).toEqual({
        status: 'refused',
        outcome: 'refused',
        retryAt: null,
      });
    }
  });

  it('backs off exponentially on transient failures and gives up after the budget of 3 retries', () => {
    const waits: number[] = [];
    let progress = fresh;
    for (;;) {
      const step = nextStep({ status: 503, retryAfter: null }, progress, NOW, 1000);
      if (step.status !== 'pending') {
        expect(step).toEqual({ status: 'failed', outcome: 'transient', retryAt: null });
        break;
      }
      waits.push(step.retryAt - NOW);
      progress = { attempts: progress.attempts + 1, transientFailures: progress.transientFailures + 1 };
    }
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(waits).toHaveLength(TRANSIENT_BUDGET);
  });

  it('treats no answer and 408 as transient', () => {
    expect(nextStep({ status: null, retryAfter: null }, fresh, NOW, 1000)).toMatchObject({ outcome: 'transient' });
    expect(nextStep({ status: 408, retryAfter: null }, fresh, NOW, 1000)).toMatchObject({ status: 'pending' });
  });

  it('waits for Retry-After on 429 without spending the transient budget, up to the attempt bound', () => {
    const progress = { attempts: 2, transientFailures: TRANSIENT_BUDGET };
    expect(nextStep({ status: 429, retryAfter: '7' }, progress, NOW, 1000)).toEqual({
      status: 'pending',
      outcome: 'throttled',
      retryAt: NOW + 7000,
    });
    const last = { attempts: MAX_ATTEMPTS - 1, transientFailures: 0 };
    expect(nextStep({ status: 429, retryAfter: '7' }, last, NOW, 1000).status).toBe('failed');
  });

  it('gives up on a 429 that asks to wait longer than an hour: the alert would be stale', () => {
    expect(nextStep({ status: 429, retryAfter: '7200' }, fresh, NOW, 1000).status).toBe('failed');
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores anything else', () => {
    expect(retryAfterMs('120', NOW)).toBe(120_000);
    expect(retryAfterMs(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(retryAfterMs('soon', NOW)).toBeNull();
    expect(retryAfterMs(null, NOW)).toBeNull();
  });
});
