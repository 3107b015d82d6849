import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTED } from '../../api/cli/text-table.ts';
import type { DenialNotHeld } from '../../shared/analysis/denials.ts';
import { inBetweenWords } from '../../shared/analysis/in-between-words.ts';
import { lens } from '../support/cli.ts';
import { corpusPath } from '../support/corpus.ts';

/** `lens report` as a newcomer first runs it: the README's line, read in a terminal. */

interface Storm {
  kind: string;
  title: string;
  attempts: number;
  avoidable: number;
  firstTs: number;
}

/** Most avoidable attempts first, then most attempts, then the earliest: the summary's order. */
function byRank(storms: readonly Storm[]): Storm[] {
  return [...storms].sort((a, b) => b.avoidable - a.avoidable || b.attempts - a.attempts || a.firstTs - b.firstTs);
}

const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** The rows of the table under `title`: the lines after its heading row, up to the blank line that ends it. */
function tableUnder(lines: readonly string[], title: RegExp): { heading: string; rows: string[] } {
  const at = lines.findIndex((line) => title.test(line));
  expect(at, `no section ${title}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', at);
  const [heading = '', ...rows] = lines.slice(at + 1, end === -1 ? undefined : end);
  return { heading, rows };
}

describe('lens report, read in a terminal', () => {
  const readmeLine = [
    '--discovery',
    corpusPath('mcp-python', 'discovery.json'),
    corpusPath('mcp-python', 'client.ndjson'),
    corpusPath('mcp-python', 'nginx-access.json.log'),
  ];
  let text: string[];
  let json: {
    events: number;
    buckets: Record<string, number>;
    avoidable: { byServer: Record<string, { avoidable: number }>; byClient: Record<string, { avoidable: number }> };
    storms: Storm[];
    denialsNotHeld: {
      total: number;
      items: (Pick<DenialNotHeld, 'newSession' | 'reprobed' | 'restarted'> & { refusal: { id: string } })[];
    };
  };
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lens-summary-'));
    const [summary, document] = await Promise.all([
      lens(['report', ...readmeLine]),
      lens(['report', '--json', ...readmeLine]),
    ]);
    expect(summary.code, summary.stderr).toBe(0);
    expect(summary.stderr).toBe('');
    expect(document.code).toBe(0);
    text = summary.stdout.trimEnd().split('\n');
    json = JSON.parse(document.stdout);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a summary by default, not the JSON document', () => {
    expect(() => JSON.parse(text.join('\n'))).toThrow();
    expect(text[0]).toBe(
      `${json.events} requests, 2026-12-02 02:42:42 to 02:43:05 UTC (a request logged by a client and a proxy counts once)`,
    );
  });

  it('lists the requests per bucket, numbers aligned under their heading', () => {
    const { heading, rows } = tableUnder(text, /^Requests by bucket$/);
    const right = heading.indexOf('requests') + 'requests'.length;
    expect(rows).toHaveLength(Object.keys(json.buckets).length);
    for (const row of rows) {
      const [bucket = '', requests = ''] = row.trim().split(/\s+/);
      expect(Number(requests), bucket).toBe(json.buckets[bucket]);
      // Right-aligned: each count ends where its heading does.
      expect(row.slice(0, right).endsWith(requests), row).toBe(true);
    }
  });

  it('names the worst servers and clients with the avoidable requests of the JSON', () => {
    const servers = tableUnder(text, /^Servers, most avoidable requests first/);
    expect(servers.heading.split(/\s+/).filter(Boolean)).toEqual([
      'server',
      'requests',
      'pending',
      'unknown',
      'refusal',
      'transient',
      'throttled',
      'ambiguous',
      'avoidable',
      'share',
    ]);
    expect(servers.rows.map((row) => row.trim().split(/\s+/)[0])).toEqual(Object.keys(json.avoidable.byServer));
    const clients = tableUnder(text, /^Clients, most avoidable requests first/);
    const listed = Object.entries(json.avoidable.byClient).slice(0, LISTED);
    expect(clients.rows.map((row) => row.trim().split(/\s+/).slice(0, 3))).toEqual(
      listed.map(([client, row]) => [client, expect.any(String), String(row.avoidable)]),
    );
    expect(clients.rows[0]).toMatch(/retried after a refusal; \d+ probed without reading discovery$/);
  });

  it('lists every storm of the corpus with its kind, counts, first attempt and title', () => {
    expect(json.storms.length).toBeLessThanOrEqual(LISTED);
    expect(text).toContain(`Storms: ${json.storms.length}`);
    const { heading, rows } = tableUnder(text, /^Storms: /);
    expect(heading.trim().split(/\s{2,}/)).toEqual([
      'kind',
      'attempts',
      'avoidable',
      'first attempt (UTC)',
      'who did what',
    ]);
    expect(rows.map((row) => row.trim().split(/\s{2,}/))).toEqual(
      byRank(json.storms).map((s) => [
        s.kind.replaceAll('_', ' '),
        String(s.attempts),
        String(s.avoidable),
        utc(s.firstTs),
        s.title,
      ]),
    );
  });

  it('lists the storms with the most avoidable attempts first, and how many there are in all', async () => {
    // 14 clients, each re-sending a refused call 3 to 8 times: a retry loop each.
    const t0 = Date.parse('2026-11-02T10:00:00Z');
    const lines = Array.from({ length: 14 }, (_, k) =>
      Array.from({ length: 3 + (k % 6) }, (_, i) =>
        JSON.stringify({
          id: `loop-${k}-${i}`,
          ts: new Date(t0 + k * 100_000 + i * 1000).toISOString(),
          source: 'client',
          client: `client-${k}`,
          server: 'desk',
          http: { method: 'POST', path: '/mcp', status: 200 },
          request: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get', arguments: { k } } },
          response: { jsonrpc: '2.0', id: i, error: { code: -32602, message: 'Unknown record' } },
        }),
      ),
    ).flat();
    const log = join(dir, 'loops.ndjson');
    writeFileSync(log, `${lines.join('\n')}\n`);
    const [summary, document] = await Promise.all([lens(['report', log]), lens(['report', '--json', log])]);
    const storms: Storm[] = JSON.parse(document.stdout).storms;
    expect(storms.length).toBeGreaterThan(LISTED);
    const shown = summary.stdout.split('\n');
    expect(shown).toContain(
      `Storms: ${storms.length}, the ${LISTED} with the most avoidable attempts (--json lists all)`,
    );
    const { rows } = tableUnder(shown, /^Storms: /);
    expect(rows.map((row) => row.trim().split(/\s{2,}/)[4])).toEqual(
      byRank(storms)
        .slice(0, LISTED)
        .map((s) => s.title),
    );
  });

  it('lists each denial that did not hold, with both answers', () => {
    expect(text).toContain(
      `Denials that did not hold: ${json.denialsNotHeld.total} (refused, then answered otherwise while the refusal still stood)`,
    );
    const { rows } = tableUnder(text, /^Denials that did not hold/);
    expect(rows).toHaveLength(json.denialsNotHeld.total);
    for (const [i, item] of json.denialsNotHeld.items.entries()) {
      expect(rows[i]).toContain(`(${item.refusal.id})`);
      // What came between: the session question of 2025-era traffic (these corpora's denials are all 2025's).
      expect(rows[i]?.trimEnd().endsWith(inBetweenWords(item).text)).toBe(true);
      expect(item.newSession).not.toBeNull();
    }
  });

  it('writes the JSON indented over many lines, not as one long line', async () => {
    const { stdout } = await lens(['report', '--json', ...readmeLine]);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(100);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(400);
    expect(lines[1]).toBe(`  "events": ${json.events},`);
  });

  it('says so of logs with no requests, in the summary and the JSON', async () => {
    const empty = join(dir, 'empty.ndjson');
    writeFileSync(empty, '\n');
    const summary = await lens(['report', empty]);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toBe('No requests in these logs.\n\nStorms: none\n\nDenials that did not hold: 0\n');
    const document = await lens(['report', '--json', empty]);
    expect(JSON.parse(document.stdout)).toMatchObject({ events: 0, span: null, storms: [], bucketsByServer: {} });
  });

  it('lines up names in other scripts', async () => {
    const log = join(dir, 'unicode.ndjson');
    const event = (client: string, i: number) =>
      JSON.stringify({
        id: `u-${i}`,
        ts: 1_796_179_362_000 + i,
        source: 'client',
        client,
        server: 'réception',
        http: { method: 'POST', path: '/mcp', status: 503 },
      });
    writeFileSync(log, `${['代理人', 'agent-🚀', 'plain'].map(event).join('\n')}\n`);
    const { stdout, code } = await lens(['report', log]);
    expect(code).toBe(0);
    const { heading, rows } = tableUnder(stdout.split('\n'), /^Clients, /);
    expect(rows).toHaveLength(3);
    // A terminal gives a CJK glyph or an emoji two columns: the counts after them still end under "requests".
    const columns = (text: string) =>
      [...text].reduce((sum, c) => sum + (/[\u4e00-\u9fff]|\p{Emoji_Presentation}/u.test(c) ? 2 : 1), 0);
    const right = heading.indexOf('requests') + 'requests'.length;
    for (const row of rows) {
      const [name = '', requests = ''] = row.trim().split(/\s{2,}/);
      const end = row.indexOf(requests, row.indexOf(name) + name.length) + requests.length;
      expect(columns(row.slice(0, end)), row).toBe(right);
    }
  });
});
