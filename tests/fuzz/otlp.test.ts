import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeAndMap, fuzzOtlpBody } from '../otlp/fuzz-bodies.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';
import { seeded } from './mutate.ts';

const SEED = 20261202;

describe('fuzzed OTLP bodies (bounded, seeded)', () => {
  it('never throw in the decoders or the span mapping', () => {
    const r = seeded(SEED + 3);
    let events = 0;
    let decoded = 0;
    for (let i = 0; i < 3_000; i++) {
      const { body, encoding } = fuzzOtlpBody(r);
      const found = decodeAndMap(body, encoding);
      events += found;
      if (found > 0) decoded++;
    }
    // Most mutations leave something to read: the fuzzer reaches past the decoders into the mapping.
    expect(decoded).toBeGreaterThan(1_000);
    expect(events).toBeGreaterThan(10_000);
  });
});

describe('fuzzed OTLP bodies through POST /v1/traces', () => {
  let db: TestStore;
  let app: TestApp;
  beforeEach(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store);
  });
  afterEach(async () => db.dispose());

  it('answer 200 or 400, never a 5xx', async () => {
    const r = seeded(SEED + 4);
    const statuses = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const { body, encoding } = fuzzOtlpBody(r);
      const res = await app.request('/v1/traces', {
        method: 'POST',
        headers: {
          'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf',
          host: '127.0.0.1',
        },
        body: new Uint8Array(body),
      });
      statuses.add(res.status);
    }
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});
