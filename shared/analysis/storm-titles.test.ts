import { expect, it } from 'vitest';
import { probeTitle } from './storm-titles.ts';

const names = { actor: 'prober-9', counterpart: 'docs', server: 'docs' };
const endpoint = (method: string, path: string) => JSON.stringify(['endpoint', method, path]);

it('writes counts as an operator reads them, with thousands separated', () => {
  const title = probeTitle(names, [endpoint('GET', '/mcp')], () => true, 12_000, 11_999);
  expect(title).toBe('prober-9 probed 1 undeclared endpoint (GET /mcp) of docs: 12,000 attempts, 11,999 avoidable');
});

it('says one attempt, not one attempts', () => {
  const title = probeTitle(names, [endpoint('POST', '/sse'), endpoint('GET', '/sse')], () => false, 1, 0);
  expect(title).toBe('prober-9 probed 2 refused endpoints (POST /sse, GET /sse) of docs: 1 attempt, 0 avoidable');
});
