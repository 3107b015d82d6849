import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { detectFormat, type LogFormat } from '../../../shared/proxy-logs/detect.ts';
import { readSpan, type Span, widenSpan } from '../../prepare/span.ts';
import { postIngest } from '../../queries/ingest.ts';
import { type IngestSettings, ingestQuery } from '../../queries/ingest-query.ts';
import { invalidateAfterIngest } from '../../queries/invalidate.ts';
import { describeFailure, type FailureView } from '../../query-client.ts';
import type { BatchLimits } from './batches.ts';
import { isHostFormat } from './formats.ts';
import { readHead, readText, UnreadableFile } from './read-file.ts';
import { MAX_RETRIES } from './send.ts';
import { type FileReject, uploadText } from './upload.ts';
import type { WarningRow } from './warnings.ts';

/** A host's log in one request: the API's line bound, and its default body bound (16 MiB, `serve --max-body`). */
const HOST_LOG_LIMITS: BatchLimits = { maxLines: 100_000, maxBytes: 16 * 1024 * 1024 };

/** `detecting`: its first lines are read; `held`: waiting for the operator to confirm its format and send it. */
export type UploadStatus = 'detecting' | 'held' | 'queued' | 'reading' | 'sending' | 'done' | 'failed';

export interface FileUpload {
  id: number;
  name: string;
  status: UploadStatus;
  /** What the first lines are; `undefined` until they were read, `null` when they are no known format. */
  detected: LogFormat | null | undefined;
  settings: IngestSettings;
  gzip: boolean;
  linesDone: number;
  linesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** Stored lines with a remark (a member dropped, a server named after the host): the events were kept. */
  warnings: number;
  /** When the file's events happened (stored now or before): what to open once it is sent. */
  span: Span | null;
  /** A passing remark: "retry 1 of 3". */
  note: string | null;
  failure: FailureView | null;
}

export interface RejectRow extends FileReject {
  key: string;
  file: string;
}

/** The reject table keeps the first rows only; the rest are counted. */
const MAX_REJECT_ROWS = 200;
/** Warnings are folded by message before they are shown (warnings.ts), so more of them are kept. */
const MAX_WARNING_ROWS = 2000;

/** Until the operator chooses otherwise, a file is sent as what it looks like; an unknown one as native. */
function initialSettings(detected: LogFormat | null, file?: string): IngestSettings {
  // The file's name travels with it (without a .gz): a Claude Desktop log's name says which of its logs it is.
  const name = file?.replace(/\.gz$/i, '');
  return { format: detected ?? 'native', server: '', protocol: '', ...(name !== undefined && { file: name }) };
}

function failureOf(error: unknown): FailureView {
  if (error instanceof UnreadableFile) {
    return { message: error.message, retryable: false, fix: 'Check the file, or decompress it and drop it again.' };
  }
  return describeFailure(error);
}

/**
 * Reads the first lines of each chosen file and detects its format. A native NDJSON file is sent at once, as the
 * screen always did; an access log, or a file of no known format, waits for the operator to confirm how to read it.
 * Files are sent one after another; when the queue empties, every cached query is loaded again.
 */
export function useIngest() {
  const client = useQueryClient();
  const [files, setFiles] = useState<FileUpload[]>([]);
  const [rejects, setRejects] = useState<RejectRow[]>([]);
  const [warningRows, setWarningRows] = useState<WarningRow[]>([]);
  const chosen = useRef(new Map<number, File>());
  const queue = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);
  const nextId = useRef(1);

  const update = useCallback((id: number, patch: (file: FileUpload) => Partial<FileUpload>) => {
    setFiles((list) => list.map((file) => (file.id === id ? { ...file, ...patch(file) } : file)));
  }, []);

  const upload = useCallback(
    async (id: number, file: File, gzip: boolean, settings: IngestSettings) => {
      update(id, () => ({ status: 'reading' }));
      const text = await readText(file, gzip);
      const query = ingestQuery(settings);
      // A host's log goes whole: its reader pairs a request with an answer that may be thousands of lines later.
      const limits = isHostFormat(settings.format) ? HOST_LOG_LIMITS : undefined;
      await uploadText(
        text,
        (body) => postIngest(body, query),
        {
          onStart: (totals) =>
            update(id, () => ({ status: 'sending', linesTotal: totals.lines, bytesTotal: totals.bytes })),
          onRetry: (retry) => update(id, () => ({ note: `Transient failure: retry ${retry} of ${MAX_RETRIES}…` })),
          onBatch: (batch, report, mapped, warned) => {
            update(id, (f) => ({
              note: null,
              linesDone: f.linesDone + batch.lines,
              bytesDone: f.bytesDone + batch.bytes,
              accepted: f.accepted + report.accepted,
              duplicates: f.duplicates + report.duplicates,
              rejected: f.rejected + report.rejectedTotal,
              warnings: f.warnings + report.warningsTotal,
              span: widenSpan(f.span, readSpan(report.span)),
            }));
            if (mapped.length > 0) {
              setRejects((rows) =>
                rows.length >= MAX_REJECT_ROWS
                  ? rows
                  : [
                      ...rows,
                      ...mapped
                        .slice(0, MAX_REJECT_ROWS - rows.length)
                        .map((reject) => ({ ...reject, key: `${id}:${reject.line}`, file: file.name })),
                    ],
              );
            }
            if (warned.length > 0) {
              setWarningRows((rows) =>
                rows.length >= MAX_WARNING_ROWS
                  ? rows
                  : [
                      ...rows,
                      ...warned.slice(0, MAX_WARNING_ROWS - rows.length).map((w) => ({ ...w, file: file.name })),
                    ],
              );
            }
          },
        },
        limits === undefined ? {} : { limits },
      );
      update(id, () => ({ status: 'done' }));
    },
    [update],
  );

  const enqueue = useCallback(
    (id: number, gzip: boolean, settings: IngestSettings) => {
      const file = chosen.current.get(id);
      if (file === undefined) return;
      update(id, () => ({ status: 'queued', settings }));
      pending.current++;
      queue.current = queue.current
        .then(() => upload(id, file, gzip, settings))
        .catch((error: unknown) => update(id, () => ({ status: 'failed', note: null, failure: failureOf(error) })))
        .finally(() => {
          chosen.current.delete(id);
          pending.current--;
          if (pending.current === 0) void invalidateAfterIngest(client);
        });
    },
    [client, upload, update],
  );

  const detect = useCallback(
    async (id: number, file: File) => {
      try {
        const head = await readHead(file);
        if (!chosen.current.has(id)) return; // removed while its first lines were read
        const detected = detectFormat(head.lines);
        const settings = initialSettings(detected, file.name);
        update(id, () => ({ detected, gzip: head.gzip, settings, status: 'held' }));
        if (detected === 'native') enqueue(id, head.gzip, settings);
      } catch (error) {
        chosen.current.delete(id);
        update(id, () => ({ status: 'failed', failure: failureOf(error) }));
      }
    },
    [enqueue, update],
  );

  const add = useCallback(
    (picked: readonly File[]) => {
      for (const file of picked) {
        const id = nextId.current++;
        chosen.current.set(id, file);
        const entry: FileUpload = {
          id,
          name: file.name,
          status: 'detecting',
          detected: undefined,
          settings: initialSettings(null),
          gzip: false,
          linesDone: 0,
          linesTotal: 0,
          bytesDone: 0,
          bytesTotal: file.size,
          accepted: 0,
          duplicates: 0,
          rejected: 0,
          warnings: 0,
          span: null,
          note: null,
          failure: null,
        };
        setFiles((list) => [...list, entry]);
        void detect(id, file);
      }
    },
    [detect],
  );

  /** The operator's choice for a held file. */
  const change = useCallback(
    (id: number, patch: Partial<IngestSettings>) => update(id, (f) => ({ settings: { ...f.settings, ...patch } })),
    [update],
  );

  const send = useCallback((file: FileUpload) => enqueue(file.id, file.gzip, file.settings), [enqueue]);

  const remove = useCallback((id: number) => {
    chosen.current.delete(id);
    setFiles((list) =>
      list.filter((file) => file.id !== id || (file.status !== 'held' && file.status !== 'detecting')),
    );
  }, []);

  const clear = useCallback(() => {
    setFiles((list) => list.filter((file) => file.status !== 'done' && file.status !== 'failed'));
    setRejects([]);
    setWarningRows([]);
  }, []);

  return { files, rejects, warningRows, add, change, send, remove, clear };
}
