/**
 * A download of every event in the store the reads bench filled (issue 21: a million rows at flat memory), through
 * the real app as the dashboard asks for it: the rows streamed per second and how far the process's resident set
 * rose while they went, against the size of what was sent.
 */
import { readFileSync } from 'node:fs';
import { createApp } from '../api/app.ts';
import { DEFAULT_CONFIG } from '../api/env.ts';
import type { Store } from '../db/runner.ts';

const SAMPLE_MS = 50;
const NEWLINE = 10;

export async function benchExport(store: Store, now: number): Promise<void> {
  const app = createApp({ store, clock: () => now, config: DEFAULT_CONFIG });
  for (const format of ['ndjson', 'csv'] as const) {
    const before = { heap: process.memoryUsage().heapUsed, ...residentSet() };
    const peak = { ...before };
    const sample = () => {
      const now = residentSet();
      peak.heap = Math.max(peak.heap, process.memoryUsage().heapUsed);
      peak.anon = Math.max(peak.anon, now.anon);
      peak.file = Math.max(peak.file, now.file);
    };
    const sampler = setInterval(sample, SAMPLE_MS);
    const start = performance.now();
    const res = await app.request(`/api/v1/events?from=0&to=${now + 1}&format=${format}`, {
      headers: { host: '127.0.0.1' },
    });
    let bytes = 0;
    let lines = 0;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
      for (let at = chunk.value.indexOf(NEWLINE); at !== -1; at = chunk.value.indexOf(NEWLINE, at + 1)) lines++;
    }
    clearInterval(sampler);
    sample();
    const seconds = (performance.now() - start) / 1000;
    const rows = format === 'csv' ? lines - 1 : lines;
    const mb = (n: number) => (n / 2 ** 20).toFixed(0);
    console.log(
      `export: ${rows.toLocaleString('en-US')} events as ${format} (${mb(bytes)} MB) in ${seconds.toFixed(1)} s, ` +
        `${Math.round(rows / seconds).toLocaleString('en-US')} rows/s; JS heap ${mb(before.heap)} -> at most ` +
        `${mb(peak.heap)} MB, anonymous memory ${mb(before.anon)} -> ${mb(peak.anon)} MB, mapped store pages ` +
        `${mb(before.file)} -> ${mb(peak.file)} MB (the reader maps the file: pages the kernel can drop)`,
    );
  }
}

/** The process's resident set by kind (Linux): its own memory, and pages of files it maps. */
function residentSet(): { anon: number; file: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}
