import { formatCount } from '../../format.ts';
import type { FileUpload } from './use-ingest.ts';

const STATUS: Readonly<Record<FileUpload['status'], string>> = {
  queued: 'Waiting',
  reading: 'Reading',
  sending: 'Sending',
  done: 'Done',
  failed: 'Stopped',
};

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function Counts({ accepted, duplicates, rejected }: Pick<FileUpload, 'accepted' | 'duplicates' | 'rejected'>) {
  return (
    <dl className="ingest-counts">
      <div>
        <dt>Accepted</dt>
        <dd data-testid="ingest-accepted">{formatCount(accepted)}</dd>
      </div>
      <div>
        <dt>Duplicates</dt>
        <dd data-testid="ingest-duplicates">{formatCount(duplicates)}</dd>
      </div>
      <div>
        <dt>Rejected</dt>
        <dd data-testid="ingest-rejected">{formatCount(rejected)}</dd>
      </div>
    </dl>
  );
}

function FileRow({ file }: { file: FileUpload }) {
  const done = file.status === 'done' ? file.bytesTotal : file.bytesDone;
  return (
    <li className={`upload upload-${file.status}`}>
      <div className="upload-head">
        <strong className="upload-name">{file.name}</strong>
        <span className="muted small nowrap">
          {STATUS[file.status]} · {formatCount(file.linesDone)} of {formatCount(file.linesTotal)} lines ·{' '}
          {formatBytes(done)} of {formatBytes(file.bytesTotal)}
        </span>
      </div>
      <progress
        max={Math.max(file.bytesTotal, 1)}
        value={file.status === 'done' ? Math.max(file.bytesTotal, 1) : done}
        aria-label={`${file.name} uploaded`}
      />
      <p className="small">
        {formatCount(file.accepted)} accepted · {formatCount(file.duplicates)} duplicates · {formatCount(file.rejected)}{' '}
        rejected
        {file.warnings > 0 ? ` · ${formatCount(file.warnings)} unreadable member(s) dropped, events kept` : null}
      </p>
      {file.note === null ? null : (
        <p className="small muted" role="status">
          {file.note}
        </p>
      )}
      {file.failure === null ? null : (
        <div role="alert" className="error-note">
          <p>
            <strong>Stopped:</strong> {file.failure.message}.
          </p>
          <p className="muted">
            {file.failure.retryable
              ? 'This may pass: drop the file again to retry (lines already stored count as duplicates).'
              : 'Retrying will not help.'}
            {file.failure.fix === null ? '' : ` ${file.failure.fix}`}
          </p>
        </div>
      )}
    </li>
  );
}

/** Each file's progress and counts, and the counts of all of them together. */
export function UploadList({ files }: { files: readonly FileUpload[] }) {
  const sum = (key: 'accepted' | 'duplicates' | 'rejected') => files.reduce((total, f) => total + f[key], 0);
  return (
    <>
      <Counts accepted={sum('accepted')} duplicates={sum('duplicates')} rejected={sum('rejected')} />
      <ul className="uploads">
        {files.map((file) => (
          <FileRow key={file.id} file={file} />
        ))}
      </ul>
    </>
  );
}
