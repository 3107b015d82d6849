import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { actionabilityOf, type HiddenFinding, hiddenFinding, packedOf } from '../../shared/actionability/index.ts';
import { toAnalysisEvent } from '../../shared/analysis/from-event.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { classify } from '../../shared/classify/index.ts';
import { type Classification, NO_POLICY, type ServerPolicy } from '../../shared/classify/types.ts';
import {
  type FieldWarning,
  type LensEvent,
  type ParseResult,
  parseEventLine,
  validateEvent,
} from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';
import { correlationOf } from '../../shared/frames.ts';
import { type HostFormat, type HostRead, hostLogReader, isHostFormat } from '../../shared/host-logs/index.ts';
import { requestIdentity } from '../../shared/identity.ts';
import type { ProxyFormat } from '../../shared/proxy-logs/index.ts';
import { serverOfRoutes } from '../../shared/proxy-logs/routes.ts';
import { JOIN_MAX_SPAN_MS, JOIN_SKEW_MS, type JoinFacts } from '../../shared/request-join.ts';
import { hostOptions, type IngestFormat, proxyOptions, readProxyLine } from '../ingest-formats.ts';
import { UsageError } from './cli-error.ts';
import { loadDiscoveryFile } from './discovery-file.ts';
import { JoinIndex, takePartner } from './join-index.ts';
import { detectFileFormat, type LogNames, logFormat, logNames } from './log-format.ts';
import { MinHeap } from './min-heap.ts';
import { loadProxyMap } from './proxy-map-file.ts';
import { readLines } from './read-lines.ts';
import { RecentKeys } from './recent-keys.ts';

/** An event is held until an event this much later (log time) has been read: later lines may still precede it. */
export const REORDER_HOLD_MS = 60_000;
/** At most this many events are held; past it the earliest goes early, so a very busy log reorders less far. */
export const REORDER_MAX_EVENTS = 50_000;
/**
 * How long before a proxy record a client record may have been sent and still be its partner
 * (shared/request-join.ts): older ones are forgotten. A proxy record up to `REORDER_HOLD_MS` earlier than the
 * client's is caught too, as the client's is read before the proxy's is released.
 */
export const CLIENT_RECORD_MS = JOIN_MAX_SPAN_MS + JOIN_SKEW_MS;
/** Bounds each de-duplication window on a very busy log (RecentKeys). */
const MAX_RECENT_KEYS = 200_000;
/** Warnings listed one by one; the rest are only counted. */
const WARNINGS_LISTED = 20;
/** The field of an access-log reader's warning that no server was named for a line (shared/proxy-logs/common.ts). */
const UNNAMED_SERVER_FIELD = 'server';

export interface OfflineEvent {
  classification: Classification;
  analysis: AnalysisEvent;
  /** What pairs it with the other side's record of the same request. */
  join: JoinFacts;
  /** A failure's actionability profiles, packed (shared/actionability storedProfile); null for a success. */
  profile: number | null;
  /** A hidden failure's finding (the rule and text that show it); null for any other event. */
  hidden: HiddenFinding | null;
  /** A proxy record's: the id of the client record of the same request, which is counted for both. */
  partner: string | null;
}

/** An event as read, with where it was read: (ts, file, line) is the order it is released in. */
interface Read extends OfflineEvent {
  file: number;
  line: number;
  /**
   * An access-log line that nothing named the server of (no `--server`, no route, no discovery document declaring
   * its path): the event, to read again under its client record's server once that is found, and the reader's
   * warning, summed up at the end when none is.
   */
  unnamed?: { event: LensEvent; warnings: FieldWarning[] };
}

/**
 * The logs of one offline command (`[--discovery FILE] [--format F] LOG...`), read the way the server reads them
 * (same readers, validation, classification, identity, ids and pairing of client and proxy records) and streamed
 * as one log in time order, in bounded memory. Counts what is reported once at the end (`finish`).
 */
export class OfflineRun {
  private bad = 0;
  private warnings = 0;
  private undecided404s = 0;
  /** Access-log lines nothing named a server for and no client record claimed, and the first of them. */
  private unnamed = 0;
  private firstUnnamed = '';

  private constructor(
    private readonly command: string,
    private readonly logs: readonly string[],
    private readonly policyFor: (server: string) => ServerPolicy,
    private readonly hasDiscovery: boolean,
    private readonly format: IngestFormat | 'auto',
    private readonly accessLog: ReturnType<typeof proxyOptions>,
    private readonly names: LogNames,
    private readonly switches: ReadonlySet<string>,
  ) {}

  /** The run of `command ARGS`; `switches` are the command's own boolean options (`report --json`). */
  static async fromArgs(command: string, args: string[], switches: readonly string[] = []): Promise<OfflineRun> {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...Object.fromEntries(switches.map((name) => [name, { type: 'boolean' as const }])),
        discovery: { type: 'string' },
        format: { type: 'string', default: 'auto' },
        server: { type: 'string' },
        client: { type: 'string' },
        protocol: { type: 'string' },
        tz: { type: 'string' },
        start: { type: 'string' },
        'proxy-map': { type: 'string' },
      },
    });
    if (positionals.length === 0) throw new UsageError('no LOG to read');
    // Without a discovery document a 404 cannot say whether the path was declared: the classifier abstains.
    const discovery = values.discovery === undefined ? undefined : await loadDiscoveryFile(values.discovery);
    const routes = values['proxy-map'] === undefined ? [] : await loadProxyMap(values['proxy-map']);
    const format = values.format === 'auto' ? 'auto' : logFormat(values.format);
    const serverOf = serverOfRoutes(routes, discovery?.declared ?? []);
    return new OfflineRun(
      command,
      positionals,
      discovery?.policyFor ?? (() => NO_POLICY),
      discovery !== undefined,
      format,
      proxyOptions(logNames(values), serverOf),
      logNames(values),
      new Set(switches.filter((name) => (values as Record<string, unknown>)[name] === true)),
    );
  }

  /** Whether the command line set one of the command's own switches. */
  has(name: string): boolean {
    return this.switches.has(name);
  }

  note(message: string): void {
    process.stderr.write(`lens ${this.command}: ${message}\n`);
  }

  /**
   * Every event of the logs, merged by `ts` (each log is mostly in time order) through a reorder buffer: an event is
   * released once one `REORDER_HOLD_MS` later has been read, so lines slightly out of order come out in order;
   * later stragglers come out late, and the gate tells them by its own order check. `seq` is the place in this
   * stream. `counted` is false for a second event with an id already released within the hold (a re-sent line
   * counts once, as in the store) and for a proxy record that a client's record of the last `CLIENT_RECORD_MS`
   * pairs with (it counts once, with the client's view; shared/request-join.ts, one proxy record at a time in time
   * order, the held proxy records competing for the same client records, where the store pairs a batch at once,
   * api/cli/join-index.ts). An access-log line that nothing named the server of pairs with a
   * client record to any server, by request id, traceparent, or method, path and time, and is read again as that
   * server's: so `report CLIENT_LOG ACCESS_LOG` counts as the client log alone, with no `--server`. Memory: the held
   * events, and the ids and unpaired client records of those windows, each bounded.
   */
  async *events(): AsyncGenerator<OfflineEvent> {
    const files = this.logs.map((log, file) => this.read(log, file));
    const held = new MinHeap<Read>(isEarlier);
    const ids = new RecentKeys(REORDER_HOLD_MS, MAX_RECENT_KEYS);
    const unpaired = new JoinIndex(MAX_RECENT_KEYS);
    const heldProxies = new JoinIndex(MAX_RECENT_KEYS);
    let seq = 0;
    const release = (read: Read): OfflineEvent => {
      const { analysis: e, join } = read;
      e.seq = ++seq;
      if (ids.has(e.id)) e.counted = false;
      else ids.add(e.id, e.ts);
      ids.forget(e.ts);
      if (e.source !== 'proxy') return read;
      heldProxies.remove(join);
      if (!e.counted) return read;
      unpaired.forget(e.ts - CLIENT_RECORD_MS);
      const client = takePartner(join, read.unnamed !== undefined, unpaired, heldProxies);
      if (client === undefined) {
        if (read.unnamed !== undefined) this.keptUnnamed(read, read.unnamed.warnings);
        return read;
      }
      // One request, counted once, with the client's view; a line nothing named belongs to its client's server.
      const joined = read.unnamed === undefined ? read : this.readAs(read, client.server, seq);
      joined.analysis.counted = false;
      joined.partner = client.eventId;
      return joined;
    };
    for await (const read of mergeByTime(files)) {
      const e = read.analysis;
      // Noted when read, not when released: the proxy's record may be released before the client's.
      if (e.source === 'client') unpaired.add(read.join);
      else heldProxies.add(read.join, read.unnamed !== undefined);
      held.push(read);
      // Measured from the time just read rather than the latest ever read, so that one line from a wrong clock far
      // in the future releases what is held once instead of ending all reordering after it.
      for (let next = held.peek(); next !== undefined; next = held.peek()) {
        if (held.size <= REORDER_MAX_EVENTS && next.analysis.ts + REORDER_HOLD_MS >= e.ts) break;
        held.pop();
        yield release(next);
      }
    }
    for (let next = held.pop(); next !== undefined; next = held.pop()) yield release(next);
  }

  /** The notes due once the logs are read, and the exit code: 1 when a line could not be read as an event. */
  finish(): number {
    if (this.warnings > 0) {
      const listed = this.warnings > WARNINGS_LISTED ? ` (the first ${WARNINGS_LISTED} are listed above)` : '';
      this.note(`${this.warnings} member(s) dropped with a warning${listed}; their events were kept`);
    }
    if (!this.hasDiscovery && this.undecided404s > 0) {
      this.note(
        `no --discovery file: ${this.undecided404s} 404 answer(s) read as unclassifiable_no_discovery; ` +
          'a discovery document would decide them',
      );
    }
    if (this.unnamed > 0) {
      this.note(
        `${this.unnamed} access-log line(s) named no server and matched no client record, so they are counted ` +
          `under their host or "unknown" (the first: ${this.firstUnnamed}); name their server with --server NAME, ` +
          '--proxy-map FILE, or a --discovery file of {"servers":{"NAME":DOCUMENT}} declaring their paths',
      );
    }
    if (this.bad > 0) this.note(`${this.bad} line(s) could not be read as events`);
    return this.bad > 0 ? 1 : 0;
  }

  /** One line per run says what became of them: a log of proxy lines alone would otherwise list each. */
  private keptUnnamed(read: Read, warnings: readonly FieldWarning[]): void {
    if (this.unnamed++ === 0) this.firstUnnamed = `${this.logs[read.file]}:${read.line}: ${warnings[0]?.message}`;
  }

  /** One log, line by line. Bad lines and dropped members are reported on stderr with the file and line. */
  private async *read(log: string, file: number): AsyncGenerator<Read> {
    const format = this.format === 'auto' ? await detectFileFormat(log) : this.format;
    if (isHostFormat(format)) {
      yield* this.readHostLog(log, file, format);
      return;
    }
    const seen = new Map<string, number>();
    for await (const { line, text } of readLines(log)) {
      if (text === null) {
        this.bad++;
        process.stderr.write(`${log}:${line}: invalid_encoding: not valid UTF-8; re-encode the log as UTF-8\n`);
        continue;
      }
      const parsed = format === 'native' ? parseEventLine(text) : this.readAccessLine(format, text, seen);
      if (parsed === null) continue;
      if (!parsed.ok) {
        this.bad++;
        process.stderr.write(`${log}:${line}: ${parsed.error.code}: ${parsed.error.message}\n`);
        continue;
      }
      // An access-log line whose server nothing named may yet take its client record's: its warning waits for that.
      const unnamed = format === 'native' ? [] : parsed.warnings.filter((w) => w.field === UNNAMED_SERVER_FIELD);
      this.warn(
        file,
        line,
        parsed.warnings.filter((w) => !unnamed.includes(w)),
      );
      const read = this.classified(parsed.event, file, line);
      if (read.classification.kind === 'unclassifiable_no_discovery') this.undecided404s++;
      if (unnamed.length > 0) read.unnamed = { event: parsed.event, warnings: unnamed };
      yield read;
    }
  }

  /**
   * A host's or bridge's log (shared/host-logs), streamed through its reader: records as they complete, what the
   * reader says of the log on stderr once it is read. A log that writes no times starts at the file's last change
   * unless --start names its start.
   */
  private async *readHostLog(log: string, file: number, format: HostFormat): AsyncGenerator<Read> {
    const options = hostOptions(this.names, log);
    options.start ??= (await stat(log)).mtimeMs;
    const reader = hostLogReader(format, options);
    const take = (reads: HostRead[]): Read[] =>
      reads.flatMap((read) => {
        if ('refused' in read) {
          this.bad++;
          process.stderr.write(`${log}:${read.line}: ${read.refused.code}: ${read.refused.message}\n`);
          return [];
        }
        const parsed = validateEvent(read.value);
        if (!parsed.ok) {
          this.bad++;
          process.stderr.write(`${log}:${read.line}: ${parsed.error.code}: ${parsed.error.message}\n`);
          return [];
        }
        this.warn(file, read.line, [...read.warnings, ...parsed.warnings]);
        return [this.classified(parsed.event, file, read.line)];
      });
    for await (const { line, text } of readLines(log)) {
      if (text === null) {
        this.bad++;
        process.stderr.write(`${log}:${line}: invalid_encoding: not valid UTF-8; re-encode the log as UTF-8\n`);
        continue;
      }
      yield* take(reader.push(line, text));
    }
    yield* take(reader.end());
    for (const note of reader.notes()) this.note(`${log}: ${note}`);
  }

  /** One event classified, with its analysis view and join facts, under the server it names. */
  private classified(event: LensEvent, file: number, line: number, seq = 0): Read {
    const classification = classify(event, this.policyFor(event.server));
    const analysis = toAnalysisEvent(event, classification, {
      id: eventIdOf(event),
      seq, // set when released in time order
      identity: requestIdentity(event.server, event.request, event.protocol),
      counted: true,
    });
    const join = joinFactsOf(event, analysis, file, line);
    const read = actionabilityOf(event);
    const [profile, hidden] = [packedOf(read, classification.bucket), hiddenFinding(read)];
    return { classification, analysis, join, profile, hidden, partner: null, file, line };
  }

  /** An unnamed access-log line read again as `server`'s: classified against that server's discovery document. */
  private readAs(read: Read, server: string, seq: number): Read {
    const event = { ...(read.unnamed as { event: LensEvent }).event, server };
    // Its id is the line's digest, which the server's name does not change: the copy keeps the original's id.
    return this.classified(event, read.file, read.line, seq);
  }

  /** A line's dropped members on stderr, FILE:LINE: field: message, the first WARNINGS_LISTED of the run. */
  private warn(file: number, line: number, warnings: readonly FieldWarning[]): void {
    for (const warning of warnings) {
      if (++this.warnings <= WARNINGS_LISTED)
        process.stderr.write(`${this.logs[file]}:${line}: ${warning.field}: ${warning.message}\n`);
    }
  }

  /** An access-log line as the server reads it (api/ingest-formats.ts), its reader's warnings first. */
  private readAccessLine(format: ProxyFormat, text: string, seen: Map<string, number>): ParseResult | null {
    const read = readProxyLine(format, text, this.accessLog, seen);
    if (read === null || !read.ok) return read;
    const result = validateEvent(read.value);
    if (result.ok) result.warnings = [...read.warnings, ...result.warnings];
    return result;
  }
}

/** The join facts of an event (db/queries/request-join.ts reads the same from the stored columns). */
function joinFactsOf(event: LensEvent, analysis: AnalysisEvent, file: number, line: number): JoinFacts {
  return {
    eventId: analysis.id,
    source: analysis.source,
    server: analysis.server,
    ts: analysis.ts,
    latencyMs: analysis.latencyMs,
    session: analysis.session,
    httpMethod: analysis.httpMethod,
    httpPath: analysis.httpPath,
    httpStatus: analysis.httpStatus,
    timeout: event.timeout === true,
    requestId: event.http?.requestId ?? null,
    correlation: correlationOf(event),
    // Logs are read one after another in file order, lines in their order: a log's own order, as the store's seq.
    order: file * 2 ** 32 + line,
  };
}

function isEarlier(a: Read, b: Read): boolean {
  const dt = a.analysis.ts - b.analysis.ts;
  return dt < 0 || (dt === 0 && (a.file < b.file || (a.file === b.file && a.line < b.line)));
}

/** Several logs as one stream: always the earliest next event of any log, so that none runs ahead of the others. */
async function* mergeByTime(files: readonly AsyncGenerator<Read>[]): AsyncGenerator<Read> {
  try {
    const heads = await Promise.all(files.map((f) => f.next()));
    for (;;) {
      let first: number | undefined;
      let earliest: Read | undefined;
      for (const [i, head] of heads.entries()) {
        if (head.done || (earliest !== undefined && !isEarlier(head.value, earliest))) continue;
        first = i;
        earliest = head.value;
      }
      if (first === undefined || earliest === undefined) return;
      yield earliest;
      heads[first] = await (files[first] as AsyncGenerator<Read>).next();
    }
  } finally {
    // A log that failed ends the run: the others' files are closed rather than left open.
    await Promise.allSettled(files.map((f) => f.return(undefined)));
  }
}
