import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DecodeBudget, decodeTraces } from '../../shared/otlp/index.ts';
import { decodeAndMap, fuzzOtlpBody } from '../otlp/fuzz-bodies.ts';
import { fuzzOtlpContainers } from '../otlp/fuzz-containers.ts';
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

describe('OTLP bodies of random container shapes (bounded, seeded)', () => {
  it('never throw in the decoders or the mapping, and reach both the mapping and the budget', () => {
    const r = seeded(SEED + 5);
    const outcomes = { mapped: 0, overBudget: 0, refused: 0 };
    for (let i = 0; i < 1_500; i++) {
      const { body, encoding } = fuzzOtlpContainers(r);
      const decoded = decodeTraces(body, encoding, new DecodeBudget());
      if (decoded.ok) {
        if (decodeAndMap(body, encoding) > 0) outcomes.mapped++;
      } else if (decoded.over !== null) outcomes.overBudget++;
      else outcomes.refused++;
    }
    expect(outcomes.mapped).toBeGreaterThan(300);
    expect(outcomes.overBudget).toBeGreaterThan(10);
    expect(outcomes.refused).toBeGreaterThan(10);
  });

  it('answer 200, 400 or 413 through POST /v1/traces, never a 5xx', async () => {
    const db = await openTempSqlite();
    try {
      const app = createTestApp(db.store);
      const r = seeded(SEED + 6);
      const statuses = new Set<number>();
      for (let i = 0; i < 80; i++) {
        const { body, encoding } = fuzzOtlpContainers(r);
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
      expect([...statuses].every((status) => [200, 400, 413].includes(status))).toBe(true);
      expect(statuses).toContain(200);
    } finally {
      await db.dispose();
    }
  });
});
