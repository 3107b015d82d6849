import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DISCOVERY, demoEvents } from '../../api/demo/generate.ts';
import { type Reading, readMetric, storeReads } from '../../api/services/alerts/readings.ts';
import type { GroupValue } from '../../shared/alerts/values.ts';
import { createTestApp, get, TEST_NOW, type TestApp } from '../support/app.ts';
import { lens } from '../support/cli.ts';
import { openDemoSqlite, type TestStore } from '../support/stores.ts';

/**
 * A number the dashboard shows, the alert metric that watches it and `lens report` over the same traffic are one
 * number (STYLE.md 8): read three ways over the demo day, they must agree.
 */
interface ServerRow {
  server: string;
  requests: number;
  avoidable: number;
}

describe('one reader per number, on the demo data', () => {
  let db: TestStore;
  let app: TestApp;
  let dir: string;
  let report: {
    identities: { identity: string; represented: number }[];
    avoidable: { byServer: Record<string, { requests: number; avoidable: number; share: number | null }> };
  };
  // The whole demo day, and a little either side, so that the three readers see the same events.
  const from = TEST_NOW - 25 * 3_600_000;
  const to = TEST_NOW + 60_000;
  const window = `from=${from}&to=${to}`;

  const alert = (rule: Omit<Reading, 'scope' | 'windowSeconds'>): Promise<GroupValue[]> =>
    readMetric(db.store, storeReads(db.store), { ...rule, scope: {}, windowSeconds: (to - from) / 1000 }, to);

  beforeAll(async () => {
    db = await openDemoSqlite(TEST_NOW);
    app = createTestApp(db.store);
    dir = mkdtempSync(join(tmpdir(), 'lens-one-reader-'));
    writeFileSync(
      join(dir, 'demo.ndjson'),
      demoEvents(TEST_NOW)
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    writeFileSync(join(dir, 'discovery.json'), JSON.stringify({ servers: DEMO_DISCOVERY }));
    const run = await lens(['report', '--json', '--discovery', join(dir, 'discovery.json'), join(dir, 'demo.ndjson')]);
    expect(run.code, run.stderr).toBe(0);
    report = JSON.parse(run.stdout);
  }, 120_000);
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.dispose();
  });

  it("an identity's re-presentations: the identity list, its alert metric and the report", async () => {
    const listed = await (await get(app, `/api/v1/identities?${window}&limit=5`)).json();
    const top = listed.identities[0];
    expect(top.represented).toBeGreaterThanOrEqual(40); // the demo's denied sampling request, seed 002's alarm
    const perIdentity = await alert({ metric: 'identity_representations', groupBy: 'identity' });
    for (const shown of listed.identities) {
      expect(perIdentity.find((v) => v.group === shown.identity)?.value, shown.identity).toBe(shown.represented);
    }
    const [fleet] = await alert({ metric: 'identity_representations', groupBy: 'none' });
    expect(fleet?.value).toBe(top.represented);
    expect(report.identities.slice(0, 5).map((i) => [i.identity, i.represented])).toEqual(
      listed.identities.map((i: { identity: string; represented: number }) => [i.identity, i.represented]),
    );
  });

  it("a server's avoidable requests and share: the servers list, the alert metrics and the report", async () => {
    const listed = await (await get(app, `/api/v1/servers?${window}`)).json();
    const shares = await alert({ metric: 'avoidable_share', groupBy: 'server' });
    const counts = await alert({ metric: 'avoidable_count', groupBy: 'server' });
    const withAvoidable = listed.servers.filter((s: { avoidable: number }) => s.avoidable > 0);
    expect(withAvoidable.length).toBeGreaterThan(2);
    for (const { server: name, requests, avoidable } of listed.servers as ServerRow[]) {
      const offline = report.avoidable.byServer[name];
      expect(offline?.requests, name).toBe(requests);
      expect(offline?.avoidable, name).toBe(avoidable);
      expect(counts.find((v) => v.group === name)?.value, name).toBe(avoidable);
      const share = shares.find((v) => v.group === name)?.value;
      expect(share, name).toBe(offline?.share);
      expect(share, name).toBe(requests === 0 ? null : avoidable / requests);
    }
  });
});
