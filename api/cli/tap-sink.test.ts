import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import type { EventLine } from '../../shared/tap/events.ts';
import { shipSink } from './tap-sink.ts';

const dir = mkdtempSync(join(tmpdir(), 'lens-tap-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An ingest endpoint that keeps the lines it is sent and holds its first answer until told to give it. */
async function heldCollector() {
  const lines: string[] = [];
  let firstAnswer: ServerResponse | undefined;
  let firstArrived: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
  const answer = (response: ServerResponse) =>
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ accepted: 0, duplicates: 0, rejected: [], rejectedTotal: 0, warnings: [], warningsTotal: 0 }),
      );
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      lines.push(...gunzipSync(Buffer.concat(chunks)).toString('utf8').trimEnd().split('\n'));
      if (firstAnswer === undefined) {
        firstAnswer = response;
        firstArrived();
      } else answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    lines,
    arrived,
    release: () => answer(firstAnswer as ServerResponse),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

it('ships an event written just before close, while an earlier batch is still on its way', async () => {
  const collector = await heldCollector();
  const sink = shipSink(collector.url, null, join(dir, 'spool.ndjson'));
  sink.write({ id: 'first' } as unknown as EventLine);
  await collector.arrived;
  // Large enough that its append to the spool is still running when the first batch's answer comes back: the
  // shipper must not take "nothing on disk yet" for "nothing left" just because the exit has begun.
  sink.write({ id: 'last', text: 'x'.repeat(16 * 1024 * 1024) } as unknown as EventLine);
  const closing = sink.close();
  collector.release();
  expect(await closing).toEqual([]);
  expect(collector.lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['first', 'last']);
  await collector.close();
});
