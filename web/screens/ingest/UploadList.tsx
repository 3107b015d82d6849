import { SpanLink } from '../../components/SpanLink.tsx';
import { counted, formatBytes, formatCount } from '../../format.ts';
import { spanText, widenSpan } from '../../prepare/span.ts';
import { settingsText } from './formats.ts';
import type { FileUpload } from './use-ingest.ts';

const STATUS: Readonly<Record<FileUpload['status'], string>> = {
  detecting: 'Reading its first lines',
  held: 'Waiting for you',
  queued: 'Waiting',
  reading: 'Reading',
  sending: 'Sending',
  done: 'Done',
  failed: 'Stopped',
};

type CountKey = 'accepted' | 'duplicates' | 'rejected' | 'warnings';

const COUNTS: readonly { key: CountKey; label: string }[] = [
  { key: 'accepted', label: 'Accepted' },
  { key: 'duplicates', label: 'Duplicates' },
  { key: 'rejected', label: 'Rejected' },
  { key: 'warnings', label: 'Warnings' },
];

function Counts({ sum }: { sum: (key: CountKey) => number }) {
  return (
    <dl className="ingest-counts">
      {COUNTS.map(({ key, label }) => (
        <div key={key}>
          <dt>{label}</dt>
          <dd data-testid={`ingest-${key}`}>{formatCount(sum(key))}</dd>
        </div>
      ))}
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
          {STATUS[file.status]} · {formatCount(file.linesDone)} of {counted(file.linesTotal, 'line')} ·{' '}
          {formatBytes(done)} of {formatBytes(file.bytesTotal)}
        </span>
      </div>
      <progress
        max={Math.max(file.bytesTotal, 1)}
        value={file.status === 'done' ? Math.max(file.bytesTotal, 1) : done}
        aria-label={`${file.name} uploaded`}
      />
      {file.detected === undefined ? null : (
        <p className="small muted" data-testid="sent-as">
          {settingsText(file.settings)}
          {file.gzip ? ' · gzip, decompressed in your browser' : ''}
        </p>
      )}
      <p className="small">
        {formatCount(file.accepted)} accepted · {counted(file.duplicates, 'duplicate')} · {formatCount(file.rejected)}{' '}
        rejected
        {file.warnings > 0 ? ` · ${counted(file.warnings, 'warning')}, events kept` : null}
      </p>
      {file.span === null ? null : (
        <p className="small" data-testid="file-span">
          Its events happened {spanText(file.span)}
        </p>
      )}
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

/**
 * When the sent files' events happened, and the overview of exactly that window: an old log's events are in no
 * preset range ending now, and its upload should not end on an empty screen.
 */
function Arrived({ files }: { files: readonly FileUpload[] }) {
  const span = files.reduce((all, file) => widenSpan(all, file.span), files[0]?.span ?? null);
  if (span === null) return null;
  const busy = files.some((file) => file.status !== 'done' && file.status !== 'failed');
  return (
    <p className="arrived" data-testid="ingest-span">
      {busy ? 'So far, these events happened' : 'These events happened'} <strong>{spanText(span)}</strong>.{' '}
      <SpanLink span={span} testId="view-span">
        Open this range on the overview →
      </SpanLink>
    </p>
  );
}

/** Each sent file's progress and counts, and the counts of all of them together. */
export function UploadList({ files }: { files: readonly FileUpload[] }) {
  const sum = (key: CountKey) => files.reduce((total, f) => total + f[key], 0);
  return (
    <>
      <Counts sum={sum} />
      <Arrived files={files} />
      <ul className="uploads">
        {files.map((file) => (
          <FileRow key={file.id} file={file} />
        ))}
      </ul>
    </>
  );
}
