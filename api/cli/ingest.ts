import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError } from './cli-error.ts';
import { defaultStatePath, IngestState } from './ingest-state.ts';
import { detectFileFormat, ingestQueryString, logFormat, logNames } from './log-format.ts';
import { Progress } from './progress.ts';
import { isGzip, readLines } from './read-lines.ts';
import { shipBatch } from './ship.ts';

const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Ships NDJSON files to a running server in batches. After each committed batch the file's offset is saved, so a
 * second run resumes where the first stopped (and a grown log ships only its new lines). Re-sending a batch is
 * harmless: events are deduplicated by id.
 */
export async function ingestCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'batch-lines': { type: 'string', default: '5000' },
      restart: { type: 'boolean', default: false },
      'skip-bad-lines': { type: 'boolean', default: false },
      state: { type: 'string', default: defaultStatePath() },
      format: { type: 'string', default: 'auto' },
      server: { type: 'string' },
      client: { type: 'string' },
      protocol: { type: 'string' },
    },
  });
  if (values.url === undefined || positionals.length === 0) throw new CliError('usage: ingest FILE... --url URL', 2);
  const names = logNames(values);
  const url = values.url.replace(/\/+$/, '');
  const batchLines = Number(values['batch-lines']);
  if (!Number.isInteger(batchLines) || batchLines < 1)
    throw new CliError('--batch-lines must be a positive integer', 2);
  const state = new IngestState(values.state);
  const token = process.env.LENS_TOKEN || null;
  let rejectedTotal = 0;
  let warningsTotal = 0;

  for (const file of positionals) {
    const path = resolve(file);
    const size = await fileSize(path);
    const saved = values.restart ? undefined : state.get(url, path);
    // A gzip log's offsets count decompressed bytes; it is rotated, so it never shrinks under a saved offset.
    const start = saved && (isGzip(path) || saved.offset <= size) ? saved : { offset: 0, line: 1 };
    const format = values.format === 'auto' ? await detectFileFormat(path) : logFormat(values.format);
    const query = ingestQueryString(format, names);
    const progress = new Progress(file, size, start.offset);
    let batch: string[] = [];
    let batchBytes = 0;
    let batchFirstLine = start.line;
    let lineNumbers: number[] = [];

    const flush = async (offset: number, nextLine: number) => {
      if (batch.length > 0) {
        const report = await shipBatch(url, `${batch.join('\n')}\n`, token, query);
        progress.count(report.accepted, report.duplicates, report.rejectedTotal);
        for (const reject of report.rejected) {
          const at = lineNumbers[reject.line - 1] ?? batchFirstLine;
          progress.log(`${file}:${at}: ${reject.code}: ${reject.message}`);
        }
        if (report.rejectedTotal > report.rejected.length) {
          progress.log(`${file}: ${report.rejectedTotal - report.rejected.length} more rejected line(s) in this batch`);
        }
        rejectedTotal += report.rejectedTotal;
        warningsTotal += report.warningsTotal;
      }
      state.set(url, path, { offset, line: nextLine });
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
        if (!values['skip-bad-lines']) {
          await flush(last.offset, last.line);
          throw new CliError(
            `${file}:${line}: not valid UTF-8; re-encode the log, or pass --skip-bad-lines to ship the rest and list such lines`,
          );
        }
        progress.log(`${file}:${line}: invalid_encoding: not valid UTF-8, skipped`);
        rejectedTotal++;
        last = { offset: end, line: line + 1 };
        continue;
      }
      batch.push(text);
      lineNumbers.push(line);
      batchBytes += text.length;
      last = { offset: end, line: line + 1 };
      if (batch.length >= batchLines || batchBytes >= MAX_BATCH_BYTES) await flush(last.offset, last.line);
    }
    // Up to the last complete line: a line still being written ships with the next run.
    await flush(last.offset, last.line);
    progress.done();
  }
  if (warningsTotal > 0) {
    // Kept events, not failures: the exit code stays 0 for them.
    process.stderr.write(
      `lens ingest: ${warningsTotal} member(s) of accepted lines were dropped (shape not readable)\n`,
    );
  }
  return rejectedTotal > 0 ? 1 : 0;
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
