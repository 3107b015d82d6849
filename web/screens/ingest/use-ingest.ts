import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { postIngest } from '../../queries/ingest.ts';
import { invalidateAfterIngest } from '../../queries/invalidate.ts';
import { describeFailure, type FailureView } from '../../query-client.ts';
import { MAX_RETRIES } from './send.ts';
import { type FileReject, uploadText } from './upload.ts';

export type UploadStatus = 'queued' | 'reading' | 'sending' | 'done' | 'failed';

export interface FileUpload {
  id: number;
  name: string;
  status: UploadStatus;
  linesDone: number;
  linesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** Members of accepted lines dropped because their shape was not readable: the events were kept. */
  warnings: number;
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

/** Uploads dropped files one after another; when the queue empties, every cached query is loaded again. */
export function useIngest() {
  const client = useQueryClient();
  const [files, setFiles] = useState<FileUpload[]>([]);
  const [rejects, setRejects] = useState<RejectRow[]>([]);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const pending = useRef(0);
  const nextId = useRef(1);

  const update = useCallback((id: number, patch: (file: FileUpload) => Partial<FileUpload>) => {
    setFiles((list) => list.map((file) => (file.id === id ? { ...file, ...patch(file) } : file)));
  }, []);

  const upload = useCallback(
    async (id: number, file: File) => {
      update(id, () => ({ status: 'reading' }));
      const text = await file.text();
      await uploadText(text, (body) => postIngest(body), {
        onStart: (totals) =>
          update(id, () => ({ status: 'sending', linesTotal: totals.lines, bytesTotal: totals.bytes })),
        onRetry: (retry) => update(id, () => ({ note: `Transient failure: retry ${retry} of ${MAX_RETRIES}…` })),
        onBatch: (batch, report, mapped) => {
          update(id, (f) => ({
            note: null,
            linesDone: f.linesDone + batch.lines,
            bytesDone: f.bytesDone + batch.bytes,
            accepted: f.accepted + report.accepted,
            duplicates: f.duplicates + report.duplicates,
            rejected: f.rejected + report.rejectedTotal,
            warnings: f.warnings + report.warningsTotal,
          }));
          if (mapped.length === 0) return;
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
        },
      });
      update(id, () => ({ status: 'done' }));
    },
    [update],
  );

  const add = useCallback(
    (picked: readonly File[]) => {
      for (const file of picked) {
        const id = nextId.current++;
        const entry: FileUpload = {
          id,
          name: file.name,
          status: 'queued',
          linesDone: 0,
          linesTotal: 0,
          bytesDone: 0,
          bytesTotal: file.size,
          accepted: 0,
          duplicates: 0,
          rejected: 0,
          warnings: 0,
          note: null,
          failure: null,
        };
        setFiles((list) => [...list, entry]);
        pending.current++;
        queue.current = queue.current
          .then(() => upload(id, file))
          .catch((error: unknown) =>
            update(id, () => ({ status: 'failed', note: null, failure: describeFailure(error) })),
          )
          .finally(() => {
            pending.current--;
            if (pending.current === 0) void invalidateAfterIngest(client);
          });
      }
    },
    [client, upload, update],
  );

  const clear = useCallback(() => {
    setFiles((list) => list.filter((file) => file.status !== 'done' && file.status !== 'failed'));
    setRejects([]);
  }, []);

  return { files, rejects, add, clear };
}
