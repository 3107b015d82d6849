import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analysed, createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { corpusText } from '../support/corpus.ts';
import { STORE_KINDS, type TestStore } from '../support/stores.ts';

/**
 * A log line may carry text JSON can spell but Unicode cannot: an unpaired surrogate (`\ud800`), which a truncated
 * UTF-16 string or a fuzzer writes. Canonical JSON refuses it (RFC 8785), so every reader that canonicalises what a
 * line carries must treat that refusal as "no canonical form", never as a reason to stop: `npm run fuzz` found a
 * 2026-07-28 request whose `_meta` clientInfo held one, which failed ingest.
 */

/** mcp-ts-v2's first two lines (2026-07-28 requests with clientInfo), the second's client name made unpaired. */
function linesWithUnpairedClientName(): string[] {
  const [first, second] = corpusText('mcp-ts-v2', 'client.ndjson').trim().split('\n') as [string, string];
  const broken = second.replace('clientInfo":{"name":"harbor-agent"', 'clientInfo":{"name":"harbor-\\ud800agent"');
  expect(broken).not.toBe(second);
  return [first, broken];
}

describe.each(STORE_KINDS)('unpaired surrogates in a line on $name', (kind) => {
  describe.skipIf(kind.unavailable !== null)('', () => {
    let db: TestStore;
    let app: TestApp;
    beforeEach(async () => {
      db = await kind.open();
      app = createTestApp(db.store);
    });
    afterEach(async () => db.dispose());

    it('stores and counts a 2026-07-28 request whose clientInfo holds one', async () => {
      const lines = linesWithUnpairedClientName();
      const response = await postNdjson(app, lines);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ accepted: 2, rejectedTotal: 0 });
      await analysed(app);
      const health = await (await get(app, '/api/v1/health')).json();
      expect(health.analysis).toMatchObject({ pendingEvents: 0 });
      const summary = await (
        await get(app, '/api/v1/summary?from=2026-12-01T00:00:00Z&to=2026-12-31T00:00:00Z')
      ).json();
      expect(summary.overall.total).toBe(2);
    });
  });
});
