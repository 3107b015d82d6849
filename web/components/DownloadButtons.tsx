import { useState } from 'react';
import { type DownloadFormat, saveDownload, type TableDownload } from '../download.ts';

const FORMATS: readonly { format: DownloadFormat; label: string; title: string }[] = [
  { format: 'csv', label: 'CSV', title: 'Every row of this table, for a spreadsheet' },
  { format: 'ndjson', label: 'NDJSON', title: 'Every row of this table as JSON lines, for scripts' },
];

/** A table's two downloads, every row of its range and filters rather than the rows shown. */
export function DownloadButtons({ table }: { table: TableDownload }) {
  const [busy, setBusy] = useState<DownloadFormat | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const save = async (format: DownloadFormat) => {
    setBusy(format);
    setFailure(null);
    try {
      await saveDownload(table, format);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(null);
    }
  };
  return (
    <span className="downloads" data-testid="downloads">
      {FORMATS.map(({ format, label, title }) => (
        <button
          key={format}
          type="button"
          className="quiet"
          title={title}
          disabled={busy !== null}
          onClick={() => save(format)}
        >
          {busy === format ? `${label}…` : label}
        </button>
      ))}
      {failure !== null && <span role="alert">{failure}</span>}
    </span>
  );
}
