import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseUnsafeBind } from '../../api/server.ts';
import { createTestApp, get, postNdjson, type TestApp } from '../support/app.ts';
import { clientEvent } from '../support/events.ts';
import { openTempSqlite, type TestStore } from '../support/stores.ts';

describe('the API as an attack surface', () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store);
  });
  afterAll(async () => db.dispose());

  it('refuses a cross-site Origin without echoing it', async () => {
    const hostile = 'https://evil.example/<script>alert(1)</script>';
    const res = await postNdjson(app, [clientEvent()], { origin: hostile });
    expect(res.status).toBe(403);
    const text = await res.text();
    expect(JSON.parse(text).error).toMatchObject({ code: 'foreign_origin', retryable: false });
    expect(text).not.toContain('evil.example');
    expect(text).not.toContain('<script>');
  });

  it('accepts its own origin', async () => {
    const res = await postNdjson(app, [clientEvent()], { origin: 'http://127.0.0.1:7700' });
    expect(res.status).toBe(200);
  });

  it('refuses a Host name it does not serve (DNS rebinding)', async () => {
    const res = await get(app, '/api/v1/summary', { host: 'rebind.attacker.example:7700' });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('attacker');
  });

  it('refuses a request that names no Host at all', async () => {
    const res = await app.request('/api/v1/summary');
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('foreign_origin');
  });

  it('never listens beyond loopback without credentials', () => {
    expect(refuseUnsafeBind('127.0.0.1', null)).toBeNull();
    expect(refuseUnsafeBind('0.0.0.0', null)).toContain('LENS_TOKEN');
    expect(refuseUnsafeBind('192.168.1.5', '')).toContain('LENS_TOKEN');
    expect(refuseUnsafeBind('0.0.0.0', 'a-long-secret')).toBeNull();
  });

  it('answers unknown routes with the JSON error shape and security headers', async () => {
    const res = await get(app, '/api/v1/nope');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
