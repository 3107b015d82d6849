import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { toApiError } from '../../api/app.ts';
import { ApiError } from '../../api/errors.ts';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { createRule } from '../../api/services/alerts/rules.ts';
import { ServiceError } from '../../api/services/service-error.ts';
import { ruleInputSchema } from '../../shared/alerts/rule.ts';
import { createTestApp, get, postJson, TEST_NOW, type TestApp } from '../support/app.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

const HOST = { host: '127.0.0.1:7700' };
const STORM_RULE = { name: 'probes', metric: 'probe_storm_size', groupBy: 'client', warning: 5 } as const;

/** Services throw a transport-free ServiceError; the app's onError is the one place it becomes an HTTP answer. */
describe("a service's ServiceError over HTTP", () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store);
    // What a store upgraded from before storms were kept says until their build has run: a reading must wait.
    await db.store.run(sql`DELETE FROM settings WHERE key = 'storms_built'`);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => db.dispose());

  it('answers a refusal with its status, the documented body, and no Retry-After when none is set', async () => {
    // api/services/analysis/window.ts refuses an empty range.
    const response = await get(app, '/api/v1/storms?from=2000&to=1000', HOST);
    expect(response.status).toBe(400);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(await response.json()).toEqual({
      error: {
        code: 'invalid_request',
        message: '"from" must be before "to"',
        fix: 'Swap or widen the range.',
        retryable: false,
        field: 'from',
      },
    });
  });

  it('answers a retryable one with Retry-After, also in the body, and logs nothing: it is no fault', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // api/services/alerts/readings.ts: the storms of earlier events are still being built.
    const response = await postJson(app, '/api/v1/alerts/rules/preview', {
      rule: STORM_RULE,
      from: TEST_NOW - 3_600_000,
      to: TEST_NOW,
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(await response.json()).toEqual({
      error: {
        code: 'unavailable',
        message: 'the storms of earlier events are still being built',
        fix: 'Wait: the server builds them once after an upgrade, in the background.',
        retryable: true,
        retryAfterSeconds: 30,
      },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it("refuses a rule's target with the field at fault", async () => {
    // api/services/alerts/targets.ts: loopback is refused without --allow-target.
    const response = await postJson(app, '/api/v1/alerts/rules', {
      ...STORM_RULE,
      targets: [{ type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: 'invalid_request',
      retryable: false,
      field: 'targets.0.url',
      fix: expect.stringContaining('--allow-target'),
    });
  });

  it('the alert engine waits on a reading that cannot be taken yet, by its code, without a log line', async () => {
    const rule = ruleInputSchema.parse(STORM_RULE);
    await createRule({ ctx: { db: db.store, now: TEST_NOW }, input: { rule } });
    const log = vi.fn();
    expect(await evaluateDue(db.store, TEST_NOW, log)).toBe(0);
    expect(log).not.toHaveBeenCalled();
  });
});

describe('toApiError', () => {
  it('maps a ServiceError to the answer an ApiError with the same fields gets', () => {
    const options = { fix: 'Wait.', field: 'x', retryAfterSeconds: 7 };
    const mapped = toApiError(new ServiceError('unavailable', 'not yet', options));
    const direct = new ApiError('unavailable', 'not yet', options);
    expect(mapped.status).toBe(503);
    expect(mapped.toBody()).toEqual(direct.toBody());
    expect(mapped.toBody().error).toMatchObject({ retryable: true, retryAfterSeconds: 7 });
  });

  it('says per code whether retrying can help, the same for a service and the HTTP layer', () => {
    expect(new ServiceError('store_busy', 'busy').retryable).toBe(true);
    expect(new ServiceError('invalid_request', 'bad').retryable).toBe(false);
    expect(toApiError(new ServiceError('store_full', 'full')).status).toBe(507);
  });
});
