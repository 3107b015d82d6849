/**
 * `npm run fuzz [-- INPUTS] [SEED]`: the long run of the fuzz suite (tests/fuzz). Feeds INPUTS (default 1M) fuzzed
 * real lines through the parser, classifier, identity and gate, a fifth as many mutated access-log lines of each
 * format a host's proxy writes (nginx JSON and combined, Envoy text and JSON) through their readers, a twentieth as
 * many mutated OTLP bodies (protobuf and JSON) and a fortieth as many OTLP bodies of random container shapes through
 * the OTLP decoders (under their budget) and span mapping, then 100k event lines through the ingest route on a fresh
 * embedded store, and prints what broke: crashes, 5xx answers, good lines lost. Exits 1 on any.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../api/app.ts';
import { DEFAULT_CONFIG } from '../api/env.ts';
import { openStore } from '../db/store.ts';
import { toAnalysisEvent } from '../shared/analysis/from-event.ts';
import { replayGate } from '../shared/analysis/gate.ts';
import type { AnalysisEvent } from '../shared/analysis/types.ts';
import { classify } from '../shared/classify/index.ts';
import { NO_POLICY } from '../shared/classify/types.ts';
import { parseEventLine, validateEvent } from '../shared/event.ts';
import { requestIdentity } from '../shared/identity.ts';
import { proxyLineToEvent } from '../shared/proxy-logs/index.ts';
import { fuzzHostLine, HOST_FORMATS } from '../tests/fuzz/host-lines.ts';
import { fuzzBatch, fuzzLine, seeded } from '../tests/fuzz/mutate.ts';
import { decodeAndMap, fuzzOtlpBody } from '../tests/otlp/fuzz-bodies.ts';
import { fuzzOtlpContainers } from '../tests/otlp/fuzz-containers.ts';

const inputs = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? 20261202);
const ROUTE_INPUTS = 100_000;
const real = ['mcp-python', 'a2a-js'].flatMap((corpus) =>
  readFileSync(new URL(`../tests/fixtures/corpus/${corpus}/client.ndjson`, import.meta.url), 'utf8')
    .trim()
    .split('\n'),
);

const r = seeded(seed);
let accepted = 0;
let crashes = 0;
let batch: AnalysisEvent[] = [];
const started = performance.now();
for (let i = 0; i < inputs; i++) {
  const line = fuzzLine(r.pick(real), r);
  try {
    const parsed = parseEventLine(line);
    if (!parsed.ok) continue;
    accepted++;
    const { event } = parsed;
    const identity = requestIdentity(event.server, event.request, event.protocol);
    batch.push(toAnalysisEvent(event, classify(event, NO_POLICY), { id: `${i}`, seq: i, identity, counted: true }));
    if (batch.length === 10_000) {
      replayGate(batch);
      batch = [];
    }
  } catch (error) {
    crashes++;
    if (crashes <= 5) console.error(`crash on input ${i} (seed ${seed}):`, error, line.slice(0, 300));
  }
}
replayGate(batch);
const parseSeconds = (performance.now() - started) / 1000;
console.log(`${inputs} inputs in ${parseSeconds.toFixed(1)} s: ${accepted} accepted as events, ${crashes} crashes`);

// The access-log readers: every kept line must be an event validateEvent takes.
const PROXY_INPUTS = Math.ceil(inputs / 5);
let proxyCrashes = 0;
let proxyKept = 0;
for (const format of HOST_FORMATS) {
  for (let i = 0; i < PROXY_INPUTS; i++) {
    const line = fuzzHostLine(format, r);
    try {
      const read = proxyLineToEvent(format, line, { server: 'docs' });
      if (!read.ok) continue;
      if (!validateEvent(read.value).ok) throw new Error('a kept access-log line is not an event');
      proxyKept++;
    } catch (error) {
      proxyCrashes++;
      if (proxyCrashes <= 5) console.error(`${format} crash (seed ${seed}):`, error, line.slice(0, 300));
    }
  }
}
crashes += proxyCrashes;
console.log(
  `${HOST_FORMATS.length * PROXY_INPUTS} access-log lines (${HOST_FORMATS.join(', ')}): ${proxyKept} kept as events, ${proxyCrashes} crashes`,
);

// OTLP/HTTP trace bodies: the recorded ones mutated, through both decoders and the span mapping.
const OTLP_INPUTS = Math.ceil(inputs / 20);
let otlpCrashes = 0;
let otlpEvents = 0;
for (let i = 0; i < OTLP_INPUTS; i++) {
  const { body, encoding } = fuzzOtlpBody(r);
  try {
    otlpEvents += decodeAndMap(body, encoding);
  } catch (error) {
    otlpCrashes++;
    if (otlpCrashes <= 5) console.error(`OTLP ${encoding} crash on body ${i} (seed ${seed}):`, error);
  }
}
// OTLP bodies of random container shapes: counts near the budget's limits, nesting, members of the wrong type.
const SHAPE_INPUTS = Math.ceil(inputs / 40);
for (let i = 0; i < SHAPE_INPUTS; i++) {
  const { body, encoding } = fuzzOtlpContainers(r);
  try {
    otlpEvents += decodeAndMap(body, encoding);
  } catch (error) {
    otlpCrashes++;
    if (otlpCrashes <= 5) console.error(`OTLP ${encoding} crash on shaped body ${i} (seed ${seed}):`, error);
  }
}
crashes += otlpCrashes;
console.log(
  `${OTLP_INPUTS} mutated and ${SHAPE_INPUTS} shaped OTLP bodies: ${otlpEvents} events made, ${otlpCrashes} crashes`,
);

const dir = mkdtempSync(join(tmpdir(), 'lens-fuzz-'));
const store = await openStore({ dataDir: dir });
const app = createApp({ store, clock: Date.now, config: DEFAULT_CONFIG });
const good = new Set<string>();
let errors5xx = 0;
for (let sent = 0; sent < ROUTE_INPUTS; sent += 2_000) {
  const batch = fuzzBatch(real, 2_000, r);
  for (const id of batch.good) good.add(id);
  const res = await app.request('/api/v1/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', host: '127.0.0.1' },
    body: batch.body,
  });
  if (res.status >= 500) errors5xx++;
}
// By id, as the bounded test compares: two good lines may share an id (a mutated copy at another time or server),
// each stored under its own (event_id, ts, server), so counting rows against distinct ids would not balance.
const rows = await store.all<{ id: string }>(
  (await import('drizzle-orm')).sql`SELECT DISTINCT event_id AS id FROM events`,
);
const stored = new Set(rows.map((row) => row.id));
const lost = [...good].filter((id) => !stored.has(id)).length;
console.log(`${ROUTE_INPUTS} lines through POST /api/v1/ingest: ${errors5xx} 5xx answers, ${lost} good lines lost`);
await store.close();
rmSync(dir, { recursive: true, force: true });
process.exitCode = crashes + errors5xx + Math.abs(lost) > 0 ? 1 : 0;
