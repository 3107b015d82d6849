import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAnalysisEvent } from '../../shared/analysis/from-event.ts';
import { replayGate } from '../../shared/analysis/gate.ts';
import { classify } from '../../shared/classify/index.ts';
import { NO_POLICY } from '../../shared/classify/types.ts';
import { parseEventLine, validateEvent } from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';
import { requestIdentity } from '../../shared/identity.ts';
import { proxyLineToEvent } from '../../shared/proxy-logs/index.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { CORPORA, corpusText } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';
import { fuzzHostLine, HOST_FORMATS, HOST_LINES } from './host-lines.ts';
import { fuzzBatch, fuzzLine, seeded } from './mutate.ts';

const REAL = CORPORA.flatMap((corpus) => corpusText(corpus, 'client.ndjson').trim().split('\n'));
const SEED = 20261202;

describe('fuzzed real lines (bounded, seeded)', () => {
  it('never throw in the parser, the classifier, the identity or the gate', () => {
    const r = seeded(SEED);
    const analysed = [];
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const line = fuzzLine(r.pick(REAL), r);
      const parsed = parseEventLine(line);
      if (!parsed.ok) {
        expect(parsed.error.message.length).toBeGreaterThan(0);
        continue;
      }
      accepted++;
      const { event } = parsed;
      const classification = classify(event, NO_POLICY);
      const identity = requestIdentity(event.server, event.request, event.protocol);
      analysed.push(
        toAnalysisEvent(event, classification, { id: `${i}:${eventIdOf(event)}`, seq: i, identity, counted: true }),
      );
    }
    expect(accepted).toBeGreaterThan(5_000);
    expect(replayGate(analysed).size).toBe(analysed.length);
  });
});

describe('fuzzed real access-log lines of every format a host proxy writes (bounded, seeded)', () => {
  it.each(HOST_FORMATS)('never throw in the %s reader, and what it keeps is an event', (format) => {
    for (const line of HOST_LINES[format])
      expect(proxyLineToEvent(format, line, { server: 'docs' }).ok, line).toBe(true);
    const r = seeded(SEED + 2);
    let kept = 0;
    for (let i = 0; i < 10_000; i++) {
      const line = fuzzHostLine(format, r);
      const read = proxyLineToEvent(format, line, { server: 'docs' });
      if (!read.ok) continue;
      kept++;
      expect(validateEvent(read.value).ok).toBe(true);
    }
    expect(kept).toBeGreaterThan(2_000);
  });
});

describe.each(STORE_KINDS)('fuzzed batches through the ingest route on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    it('answer no 5xx and lose no good line', async () => {
      const r = seeded(SEED + 1);
      const good = new Set<string>();
      for (let batch = 0; batch < 6; batch++) {
        const fuzzed = fuzzBatch(REAL, 300, r);
        for (const id of fuzzed.good) good.add(id);
        const res = await app.request('/api/v1/ingest', {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1' },
          body: fuzzed.body,
        });
        expect({ batch, status: res.status }).toEqual({ batch, status: 200 });
      }
      const stored = await (await app.request('/api/v1/events?limit=1000', { headers: { host: '127.0.0.1' } })).json();
      const ids = new Set<string>();
      let page = stored;
      for (;;) {
        for (const e of page.events as { id: string }[]) ids.add(e.id);
        if (page.nextCursor === null) break;
        page = await (
          await app.request(`/api/v1/events?limit=1000&cursor=${page.nextCursor}`, { headers: { host: '127.0.0.1' } })
        ).json();
      }
      expect(ids).toEqual(good);
    });
  });
});
