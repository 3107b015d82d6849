import type { IngestReport } from '../../queries/ingest.ts';
import { type Batch, type BatchLimits, DEFAULT_LIMITS, fileLine, splitBatches } from './batches.ts';
import { type RetryOptions, withRetry } from './send.ts';

export interface Totals {
  lines: number;
  bytes: number;
}

export interface FileReject {
  line: number;
  code: string;
  field: string | null;
  message: string;
}

/** A stored line with a remark: a member left out, or a server named after the line's host. */
export interface FileWarning {
  line: number;
  field: string;
  message: string;
}

export interface UploadEvents {
  onStart: (totals: Totals) => void;
  /** After each stored batch; rejects and warnings carry file line numbers. */
  onBatch: (batch: Batch, report: IngestReport, rejects: FileReject[], warnings: FileWarning[]) => void;
  onRetry: (retry: number, error: unknown) => void;
}

export type SendBatch = (body: string) => Promise<IngestReport>;

/** The rejects of a batch's report, with the file's line numbers. */
function fileRejects(batch: Pick<Batch, 'firstLine'>, report: IngestReport): FileReject[] {
  return report.rejected.map((reject) => ({
    line: fileLine(batch, reject.line),
    code: reject.code,
    field: reject.field ?? null,
    message: reject.message,
  }));
}

function fileWarnings(batch: Pick<Batch, 'firstLine'>, report: IngestReport): FileWarning[] {
  return report.warnings.map((warning) => ({
    line: fileLine(batch, warning.line),
    field: warning.field,
    message: warning.message,
  }));
}

/**
 * Sends a file's text batch after batch, one at a time. A transient failure is retried (see send.ts); a refusal,
 * or a failure that outlasts the retries, is thrown and stops the file: the batches before it stay stored.
 */
export async function uploadText(
  text: string,
  send: SendBatch,
  events: UploadEvents,
  options: RetryOptions & { limits?: BatchLimits } = {},
): Promise<void> {
  const batches = splitBatches(text, options.limits ?? DEFAULT_LIMITS);
  events.onStart({
    lines: batches.reduce((sum, b) => sum + b.lines, 0),
    bytes: batches.reduce((sum, b) => sum + b.bytes, 0),
  });
  for (const batch of batches) {
    const report = await withRetry(() => send(batch.body), { ...options, onRetry: events.onRetry });
    events.onBatch(batch, report, fileRejects(batch, report), fileWarnings(batch, report));
  }
}
