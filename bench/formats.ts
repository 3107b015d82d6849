/**
 * Parse throughput per input format, on one core (this process's one thread), beside native NDJSON: each format's
 * lines read the way ingest reads them, in interleaved rounds (the order rotated each round), medians reported.
 * BENCH_FORMAT_LINES lines per format (default 200k) made from the same synthetic requests; BENCH_FORMAT_ROUNDS
 * rounds (default 5). OTLP trace bodies (JSON, protobuf, gzipped protobuf) of the recorded exports come next, as
 * many spans as lines, in bodies of a BatchSpanProcessor's 512 spans; then the hosts' own logs (host-formats.ts), as
 * many lines, whose events are fewer than their lines (a request and its answer are two lines, an entry several).
 */
import { gunzipSync } from 'node:zlib';
import { proxyOptions, readProxyLine } from '../api/ingest-formats.ts';
import { parseEventLine, validateEvent } from '../shared/event.ts';
import { DecodeBudget, decodeTraces, type OtlpEncoding, tracesToEvents } from '../shared/otlp/index.ts';
import type { ProxyFormat } from '../shared/proxy-logs/index.ts';
import { logRequest } from './access-logs.ts';
import { syntheticEvents } from './generate.ts';
import { hostSubjects } from './host-formats.ts';
import { type OtlpBodies, otlpBodies } from './otlp-bodies.ts';
import { fmt, median, printTable } from './support.ts';

const LINES = Number(process.env.BENCH_FORMAT_LINES ?? 200_000);
const ROUNDS = Number(process.env.BENCH_FORMAT_ROUNDS ?? 5);
/** Ingest reads an access log a batch at a time; `seen` (copies of a line) lives for one batch. */
const BATCH = 5000;
const BODY_SPANS = 512;
/** api/ingest-body.ts's MAX_BATCH_LINES, the span limit POST /v1/traces decodes with. */
const MAX_SPANS = 100_000;
const PROXY_FORMATS: readonly ProxyFormat[] = ['nginx-json', 'nginx-combined', 'envoy', 'envoy-json'];

/** What one pass over an input found; only the checking pass (the warm-up) fills in refusals and warnings. */
interface Pass {
  /** Lines, or spans. */
  items: number;
  events: number;
}
interface Tally {
  refused: number;
  warnings: number;
}

interface Subject {
  name: string;
  unit: 'line' | 'span';
  bytes: number;
  run(tally?: Tally): Pass;
}

function nativeSubject(lines: readonly string[]): Subject {
  return {
    name: 'native NDJSON',
    unit: 'line',
    bytes: byteLength(lines),
    run(tally) {
      let events = 0;
      for (const line of lines) {
        const parsed = parseEventLine(line);
        if (parsed.ok) {
          events++;
          if (tally) tally.warnings += parsed.warnings.length;
        } else if (tally) tally.refused++;
      }
      return { items: lines.length, events };
    },
  };
}

function proxySubject(format: ProxyFormat, lines: readonly string[]): Subject {
  const options = proxyOptions({ server: 'bench' }, undefined);
  return {
    name: format,
    unit: 'line',
    bytes: byteLength(lines),
    run(tally) {
      let events = 0;
      let seen = new Map<string, number>();
      for (let i = 0; i < lines.length; i++) {
        if (i % BATCH === 0) seen = new Map();
        const read = readProxyLine(format, lines[i] as string, options, seen);
        const parsed = read?.ok ? validateEvent(read.value) : undefined;
        if (parsed?.ok) {
          events++;
          if (tally && read?.ok) tally.warnings += read.warnings.length + parsed.warnings.length;
        } else if (tally) tally.refused++;
      }
      return { items: lines.length, events };
    },
  };
}

/** Bodies alternating between the recorded client's and server's exports, as many spans as `LINES` or just over. */
function otlpSubject(encoding: 'json' | 'protobuf' | 'gzip', recorded: readonly OtlpBodies[]): Subject {
  const bodies: { bytes: Uint8Array; spans: number }[] = [];
  let spans = 0;
  for (let i = 0; spans < LINES; i++) {
    const body = recorded[i % recorded.length] as OtlpBodies;
    bodies.push({ bytes: body[encoding], spans: body.spans });
    spans += body.spans;
  }
  const decodeAs: OtlpEncoding = encoding === 'json' ? 'json' : 'protobuf';
  return {
    name: encoding === 'gzip' ? 'otlp-protobuf+gzip' : `otlp-${encoding}`,
    unit: 'span',
    bytes: bodies.reduce((n, b) => n + b.bytes.length, 0),
    run(tally) {
      let events = 0;
      for (const body of bodies) {
        // POST /v1/traces inflates a gzipped body first (api/ingest-body.ts's inflate is a bounded gunzipSync).
        const raw = encoding === 'gzip' ? gunzipSync(body.bytes) : body.bytes;
        const decoded = decodeTraces(raw, decodeAs, new DecodeBudget({ spans: MAX_SPANS }));
        if (!decoded.ok) throw new Error(`${encoding} body does not decode: ${decoded.reason}`);
        const { items, rejected } = tracesToEvents(decoded.resources);
        if (tally) tally.refused += rejected.reduce((n, r) => n + r.spans, 0);
        for (const item of items) {
          const parsed = validateEvent(item.value);
          if (parsed.ok) {
            events++;
            if (tally) tally.warnings += parsed.warnings.length;
          } else if (tally) tally.refused += item.spans;
        }
      }
      return { items: spans, events };
    },
  };
}

function byteLength(lines: readonly string[]): number {
  return lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
}

function otlpSubjects(): Subject[] {
  const recorded = [otlpBodies('client', BODY_SPANS), otlpBodies('server', BODY_SPANS)];
  return (['json', 'protobuf', 'gzip'] as const).map((encoding) => otlpSubject(encoding, recorded));
}

export async function benchFormats(): Promise<void> {
  const byFormat: Record<'native' | ProxyFormat, string[]> = {
    native: [],
    'nginx-json': [],
    'nginx-combined': [],
    envoy: [],
    'envoy-json': [],
  };
  let index = 0;
  for (const event of syntheticEvents(LINES)) {
    const logged = logRequest(event, index++);
    byFormat.native.push(logged.client);
    for (const format of PROXY_FORMATS) byFormat[format].push(logged[format]);
  }
  const subjects = [
    nativeSubject(byFormat.native),
    ...PROXY_FORMATS.map((format) => proxySubject(format, byFormat[format])),
    ...otlpSubjects(),
    // Hosts' own logs: their recorded or reconstructed fixtures repeated, a record per request or per server event.
    ...hostSubjects(LINES),
  ];

  console.log(
    `formats: parse throughput on one core (this process's thread), ${fmt(LINES)} lines per format from the same ` +
      `synthetic requests (OTLP: ${fmt(BODY_SPANS)}-span bodies of the recorded exports, about as many spans), ` +
      `median of ${ROUNDS} interleaved rounds`,
  );
  // The checking pass: every line must read, with no warnings, or the rates would time refusals. It warms up too.
  const checked = subjects.map((subject) => {
    const tally = { refused: 0, warnings: 0 };
    const pass = subject.run(tally);
    return { subject, pass, tally };
  });
  for (const { subject, pass, tally } of checked) {
    if (tally.refused > 0 || tally.warnings > 0) {
      console.log(
        `  ${subject.name}: ${fmt(tally.refused)} ${subject.unit}s refused, ${fmt(tally.warnings)} warnings (of ${fmt(pass.items)})`,
      );
    }
  }

  const itemRates = subjects.map((): number[] => []);
  const eventRates = subjects.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < subjects.length; k++) {
      const i = (k + round) % subjects.length;
      const start = performance.now();
      const pass = (subjects[i] as Subject).run();
      const seconds = (performance.now() - start) / 1000;
      itemRates[i]?.push(pass.items / seconds);
      eventRates[i]?.push(pass.events / seconds);
    }
  }

  const nativeRate = median(eventRates[0] as number[]);
  const header = ['input', 'unit', 'B/unit', 'units', 'events', 'units/s', 'events/s', 'vs native', 'runs (events/s)'];
  const rows = checked.map(({ subject, pass }, i) => {
    const events = median(eventRates[i] as number[]);
    return [
      subject.name,
      subject.unit,
      (subject.bytes / pass.items).toFixed(0),
      fmt(pass.items),
      fmt(pass.events),
      fmt(median(itemRates[i] as number[])),
      fmt(events),
      `${(events / nativeRate).toFixed(2)}x`,
      (eventRates[i] as number[]).map(fmt).join(', '),
    ];
  });
  printTable(header, rows);
  console.log(
    '  access logs: readProxyLine (api/ingest-formats.ts) + validateEvent; native: parseEventLine. OTLP: decodeTraces +' +
      ' tracesToEvents + validateEvent (gunzip first for +gzip); its events are the recorded requests, not the' +
      ' synthetic ones. The +gzip bodies are copies of one export, so they compress far better than a real one (the' +
      ' recorded export: 5.5x); gunzip costs by the bytes it puts out.',
  );
}
