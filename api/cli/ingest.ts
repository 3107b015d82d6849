import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type HostFormat, type HostRead, hostLogReader, isHostFormat } from '../../shared/host-logs/index.ts';
import { hostOptions } from '../ingest-formats.ts';
import { CliError, UsageError } from './cli-error.ts';
import { parseWait } from './duration.ts';
import { defaultStatePath, IngestState } from './ingest-state.ts';
import { detectFileFormat, ingestQueryString, type LogNames, logFormat, logNames } from './log-format.ts';
import { Progress } from './progress.ts';
import { isGzip, readLines } from './read-lines.ts';
import { RETRY_BUDGET_MS, type ShipTarget, shipBatch } from './ship.ts';

const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** How one run goes: where it sends, what it does with bad lines, and where each file's resume point is kept. */
interface Run {
  target: ShipTarget;
  names: LogNames;
  format: string;
  batchLines: number;
  restart: boolean;
  skipBadLines: boolean;
  state: IngestState;
  statePath: string;
}

/** What one file's run did: the lines it sent and the server stored, and the totals for the end. */
interface Shipped {
  /** The first line this run read and the line it stopped before (saved as the resume point). */
  fromLine: number;
  toLine: number;
  rejected: number;
  warnings: number;
}

/**
 * Ships NDJSON files and access logs to a running server in batches. After each committed batch the file's offset
 * is saved, so a second run resumes where the first stopped (and a grown log ships only its new lines); a file with
 * nothing new since says so. Re-sending a batch is harmless: events are deduplicated by id. When a batch cannot be
 * sent (the server refused it, or kept failing for --give-up-after), the run stops saying what was sent and how to
 * send the rest.
 */
export async function ingestCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'batch-lines': { type: 'string', default: '5000' },
      'give-up-after': { type: 'string', default: `${RETRY_BUDGET_MS / 60_000}m` },
      restart: { type: 'boolean', default: false },
      'skip-bad-lines': { type: 'boolean', default: false },
      state: { type: 'string', default: defaultStatePath() },
      format: { type: 'string', default: 'auto' },
      server: { type: 'string' },
      client: { type: 'string' },
      protocol: { type: 'string' },
      tz: { type: 'string' },
      start: { type: 'string' },
    },
  });
  if (positionals.length === 0) throw new UsageError('no FILE to send');
  if (values.url === undefined) throw new UsageError('--url URL names the server to send to');
  if (!/^https?:\/\//i.test(values.url) || !URL.canParse(values.url)) {
    throw new CliError(
      `--url takes the server's http(s):// address, such as http://127.0.0.1:7700; got "${values.url}"`,
      2,
    );
  }
  const batchLines = Number(values['batch-lines']);
  if (!Number.isInteger(batchLines) || batchLines < 1)
    throw new CliError('--batch-lines must be a positive integer', 2);
  if (values.format !== 'auto') logFormat(values.format);
  const run: Run = {
    target: {
      url: values.url.replace(/\/+$/, ''),
      token: process.env.LENS_TOKEN || null,
      giveUpAfterMs: parseWait('--give-up-after', values['give-up-after']),
    },
    names: logNames(values),
    format: values.format,
    batchLines,
    restart: values.restart,
    skipBadLines: values['skip-bad-lines'],
    state: new IngestState(values.state),
    statePath: values.state,
  };
  let rejected = 0;
  let warnings = 0;
  const done: { file: string; shipped: Shipped }[] = [];
  for (const [index, file] of positionals.entries()) {
    try {
      const shipped = await shipFile(run, file);
      done.push({ file, shipped });
      rejected += shipped.rejected;
      warnings += shipped.warnings;
    } catch (error) {
      if (!(error instanceof StoppedError)) throw error;
      done.push({ file, shipped: error.shipped });
      throw new CliError(`${error.message}\n${whereItStopped(run, done, positionals.slice(index + 1))}`);
    }
  }
  if (warnings > 0) {
    // Kept events, not failures: the exit code stays 0 for them.
    process.stderr.write(`lens ingest: ${warnings} member(s) of accepted lines were dropped (shape not readable)\n`);
  }
  return rejected > 0 ? 1 : 0;
}

/** A batch that could not be sent, with what its file's run had sent before it. */
class StoppedError extends CliError {
  constructor(
    message: string,
    readonly shipped: Shipped,
  ) {
    super(message);
  }
}

/** One file, from its saved resume point (or its start with --restart) to its last whole line. */
async function shipFile(run: Run, file: string): Promise<Shipped> {
  const path = resolve(file);
  const size = await fileSize(path);
  const { url } = run.target;
  const saved = run.restart ? undefined : run.state.get(url, path);
  // A gzip log's offsets count decompressed bytes; it is rotated, so it never shrinks under a saved offset.
  const start = saved && (isGzip(path) || saved.offset <= size) ? saved : { offset: 0, line: 1 };
  const format = run.format === 'auto' ? await detectFileFormat(path) : logFormat(run.format);
  if (isHostFormat(format)) return shipHostLog(run, file, path, format);
  const query = ingestQueryString(format, run.names);
  const progress = new Progress(file, size, start.offset);
  const shipped: Shipped = { fromLine: start.line, toLine: start.line, rejected: 0, warnings: 0 };
  let batch: string[] = [];
  let batchBytes = 0;
  let batchFirstLine = start.line;
  let lineNumbers: number[] = [];

  const flush = async (offset: number, nextLine: number) => {
    if (batch.length > 0) {
      let report: Awaited<ReturnType<typeof shipBatch>>;
      try {
        report = await shipBatch(run.target, `${batch.join('\n')}\n`, query);
      } catch (error) {
        if (error instanceof CliError) throw new StoppedError(error.message, shipped);
        throw error;
      }
      progress.count(report.accepted, report.duplicates, report.rejectedTotal);
      for (const reject of report.rejected) {
        const at = lineNumbers[reject.line - 1] ?? batchFirstLine;
        progress.log(`${file}:${at}: ${reject.code}: ${reject.message}`);
      }
      if (report.rejectedTotal > report.rejected.length) {
        progress.log(`${file}: ${report.rejectedTotal - report.rejected.length} more rejected line(s) in this batch`);
      }
      shipped.rejected += report.rejectedTotal;
      shipped.warnings += report.warningsTotal;
    }
    run.state.set(url, path, { offset, line: nextLine });
    shipped.toLine = nextLine;
    progress.advance(offset);
    batch = [];
    lineNumbers = [];
    batchBytes = 0;
    batchFirstLine = nextLine;
  };

  let last = start;
  const lines = readLines(path, {
    startByte: start.offset,
    startLine: start.line,
    endByte: size,
    holdBackPartial: true,
  });
  for await (const { line, text, end } of lines) {
    if (text === null) {
      // Never silent: without the flag the shipper stops here (what came before is shipped and saved).
      if (!run.skipBadLines) {
        await flush(last.offset, last.line);
        throw new CliError(
          `${file}:${line}: not valid UTF-8; re-encode the log, or pass --skip-bad-lines to ship the rest and list such lines`,
        );
      }
      progress.log(`${file}:${line}: invalid_encoding: not valid UTF-8, skipped`);
      shipped.rejected++;
      last = { offset: end, line: line + 1 };
      continue;
    }
    batch.push(text);
    lineNumbers.push(line);
    batchBytes += text.length;
    last = { offset: end, line: line + 1 };
    if (batch.length >= run.batchLines || batchBytes >= MAX_BATCH_BYTES) await flush(last.offset, last.line);
  }
  // Up to the last complete line: a line still being written ships with the next run.
  await flush(last.offset, last.line);
  if (saved !== undefined && last.line === start.line) {
    progress.log(
      `${file}: already sent to ${url} (up to line ${start.line - 1}), nothing new since; --restart sends it again`,
    );
  } else progress.done();
  return shipped;
}

/**
 * A host's or bridge's log, read here by its reader (shared/host-logs) and shipped as native NDJSON: a request and
 * its answer may be lines apart, so the log is read whole, from its start, on every run (the records' ids are
 * stable, so what was sent before is a duplicate). A log that writes no times starts at the file's last change
 * unless --start names its start.
 */
async function shipHostLog(run: Run, file: string, path: string, format: HostFormat): Promise<Shipped> {
  const options = hostOptions(run.names, path);
  options.start ??= (await stat(path)).mtimeMs;
  const reader = hostLogReader(format, options);
  const progress = new Progress(file, await fileSize(path), 0);
  const shipped: Shipped = { fromLine: 1, toLine: 1, rejected: 0, warnings: 0 };
  let batch: HostRead[] = [];
  const flush = async () => {
    const events = batch.flatMap((read) => ('value' in read ? [read] : []));
    for (const read of batch) {
      if ('refused' in read) {
        progress.log(`${file}:${read.line}: ${read.refused.code}: ${read.refused.message}`);
        shipped.rejected++;
      }
    }
    batch = [];
    if (events.length === 0) return;
    let report: Awaited<ReturnType<typeof shipBatch>>;
    try {
      report = await shipBatch(run.target, `${events.map((read) => JSON.stringify(read.value)).join('\n')}\n`);
    } catch (error) {
      if (error instanceof CliError) throw new StoppedError(error.message, shipped);
      throw error;
    }
    progress.count(report.accepted, report.duplicates, report.rejectedTotal);
    for (const reject of report.rejected) {
      progress.log(`${file}:${events[reject.line - 1]?.line}: ${reject.code}: ${reject.message}`);
    }
    shipped.rejected += report.rejectedTotal;
    shipped.warnings += report.warningsTotal;
  };
  for await (const { line, text, end } of readLines(path)) {
    if (text === null) {
      progress.log(`${file}:${line}: invalid_encoding: not valid UTF-8, skipped`);
      shipped.rejected++;
      continue;
    }
    batch.push(...reader.push(line, text));
    shipped.toLine = line + 1;
    progress.advance(end);
    if (batch.length >= run.batchLines) await flush();
  }
  batch.push(...reader.end());
  await flush();
  for (const note of reader.notes()) progress.log(`${file}: ${note}`);
  progress.done();
  return shipped;
}

/** What a stopped run had sent, what it had not, and how to send the rest: the same command resumes. */
function whereItStopped(run: Run, done: { file: string; shipped: Shipped }[], untouched: string[]): string {
  const sent = done
    .filter(({ shipped }) => shipped.toLine > shipped.fromLine)
    .map(({ file, shipped }) => `${file} lines ${shipped.fromLine}-${shipped.toLine - 1}`);
  const stopped = done[done.length - 1];
  const rest = [
    ...(stopped === undefined ? [] : [`${stopped.file} from line ${stopped.shipped.toLine}`]),
    ...untouched,
  ];
  return [
    `  sent and stored before it stopped: ${sent.length === 0 ? 'nothing' : sent.join(', ')}`,
    `  not sent: ${rest.join(', ')}`,
    `  the same command sends the rest when run again: each file resumes where it stopped (saved in ${run.statePath})`,
  ].join('\n');
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
