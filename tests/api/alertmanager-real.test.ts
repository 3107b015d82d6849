import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resendToAlertmanagers } from '../../api/services/alerts/alertmanager-resend.ts';
import { type DeliveryOptions, deliverDue } from '../../api/services/alerts/deliver.ts';
import { evaluateDue } from '../../api/services/alerts/engine.ts';
import { removeRule } from '../../api/services/alerts/rules.ts';
import { createTestApp, get, postJson, postNdjson } from '../support/app.ts';
import { debianProgramMissing } from '../support/debian-tool.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

/**
 * A real Alertmanager (Debian's prometheus-alertmanager) takes our alerts through its own API and gives them back:
 * it accepts the labels, matches the resolve to the firing alert, and keeps a name from logs as it was. Real time
 * here, not the test clock: Alertmanager judges endsAt by its own.
 */

const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';
const skipped = debianProgramMissing(ALERTMANAGER, 'prometheus-alertmanager', 'Alertmanager suite');
const CLIENT = 'ide-"host"\n</script>{{x}} 🚨';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts Alertmanager alone (no cluster) on a free port with a temporary storage directory; answers once ready. */
async function startAlertmanager(dir: string) {
  const port = await freePort();
  const config = join(dir, 'alertmanager.yml');
  writeFileSync(config, 'route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n');
  const child: ChildProcess = spawn(
    ALERTMANAGER,
    [
      `--config.file=${config}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 100; tries++) {
    const ready = await fetch(`${url}/-/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return { url, port, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error('Alertmanager did not become ready in 10 s');
}

describe.skipIf(skipped)('a real Alertmanager', () => {
  let dir: string;
  let alertmanager: Awaited<ReturnType<typeof startAlertmanager>>;
  let db: TestStore;
  let options: DeliveryOptions;
  let ruleId: string;

  /** The alerts Alertmanager holds for our rule and still counts as active (not past their endsAt). */
  async function heldAlerts() {
    const filter = encodeURIComponent(`rule_id="${ruleId}"`);
    const res = await fetch(`${alertmanager.url}/api/v2/alerts?filter=${filter}`);
    expect(res.status).toBe(200);
    return (await res.json()) as { labels: Record<string, string>; annotations: Record<string, string> }[];
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lens-alertmanager-'));
    alertmanager = await startAlertmanager(dir);
    db = await openTempSqlite();
    const allowedTargets = [`127.0.0.1:${alertmanager.port}`];
    const app = createTestApp(db.store, { allowedTargets });
    options = {
      clock: Date.now,
      timeoutMs: 5000,
      backoffBaseMs: 1000,
      allowedTargets,
      publicUrl: 'https://lens.example',
    };
    const refusal = clientEvent({
      ts: new Date(Date.now() - 30_000).toISOString(),
      client: CLIENT,
      response: rpcError(-32602),
    });
    expect((await postNdjson(app, [refusal])).status).toBe(200);
    const res = await postJson(app, '/api/v1/alerts/rules', {
      name: 'Refusals by client',
      metric: 'refusal_count',
      groupBy: 'client',
      critical: 1,
      windowSeconds: 600,
      targets: [{ type: 'alertmanager', url: alertmanager.url }],
    });
    expect(res.status).toBe(201);
    ruleId = (await res.json()).rule.id;
  }, 20_000);
  afterAll(async () => {
    alertmanager?.child.kill();
    await db?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the firing alert with our labels, the name from the log unchanged, after a re-send still once', async () => {
    expect(await evaluateDue(db.store, Date.now(), () => undefined)).toBe(1);
    expect(await deliverDue(db.store, options)).toBe(1);
    const held = await heldAlerts();
    expect(held).toHaveLength(1);
    expect(held[0]?.labels).toEqual({
      alertname: 'Refusals by client',
      rule_id: ruleId,
      metric: 'refusal_count',
      severity: 'critical',
      client: CLIENT,
    });
    expect(held[0]).toMatchObject({ generatorURL: `https://lens.example/alerts/${ruleId}` });
    expect(held[0]?.annotations.summary).toBe(`Refusals by client — client ${CLIENT}`);

    const log: string[] = [];
    expect(await resendToAlertmanagers(db.store, options, (line) => log.push(line))).toBe(1);
    expect(log).toEqual([]);
    expect(await heldAlerts()).toHaveLength(1);
  });

  it('resolves it: the resolve matches the firing alert, so nothing stays active', async () => {
    // Deleting the rule resolves what it had firing, through the outbox.
    expect(await removeRule({ ctx: { db: db.store, now: Date.now() }, input: { id: ruleId } })).toBe(true);
    expect(await deliverDue(db.store, options)).toBe(1);
    expect(await heldAlerts()).toEqual([]);
    const app = createTestApp(db.store);
    const { deliveries } = await (await get(app, '/api/v1/alerts/deliveries')).json();
    expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered']);
  });
});
