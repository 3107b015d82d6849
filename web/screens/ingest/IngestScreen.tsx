import { DropZone } from './DropZone.tsx';
import { HeldFile } from './HeldFile.tsx';
import { RejectTable } from './RejectTable.tsx';
import { ShipPanel } from './ShipPanel.tsx';
import { StoredEvents } from './StoredEvents.tsx';
import { UploadList } from './UploadList.tsx';
import { type FileUpload, useIngest } from './use-ingest.ts';
import { WarningTable } from './WarningTable.tsx';

const waiting = (file: FileUpload) => file.status === 'detecting' || file.status === 'held';
const finished = (file: FileUpload) => file.status === 'done' || file.status === 'failed';

/** Upload logs from the browser, say how to read each, see what was stored and refused, and how to ship them otherwise. */
export function IngestScreen() {
  const { files, rejects, warningRows, add, change, send, remove, clear } = useIngest();
  const held = files.filter(waiting);
  const sent = files.filter((file) => !waiting(file));
  const busy = sent.some((file) => !finished(file));
  const rejectedTotal = sent.reduce((sum, file) => sum + file.rejected, 0);
  const warningsTotal = sent.reduce((sum, file) => sum + file.warnings, 0);
  return (
    <>
      <h1 className="screen-title">Ingest</h1>
      <section className="panel" data-testid="upload">
        <header className="panel-head">
          <h2>Upload logs</h2>
          {sent.some(finished) ? (
            <button type="button" className="quiet" onClick={clear} disabled={busy}>
              Clear
            </button>
          ) : null}
        </header>
        <DropZone onFiles={add} />
        {held.length === 0 ? null : (
          <ul className="uploads held-files" aria-label="Files waiting to be sent">
            {held.map((file) => (
              <HeldFile key={file.id} file={file} onChange={change} onSend={send} onRemove={remove} />
            ))}
          </ul>
        )}
        {sent.length === 0 ? null : <UploadList files={sent} />}
      </section>
      {sent.length === 0 ? null : (
        <section className="panel" data-testid="rejects">
          <header className="panel-head">
            <h2>Rejected lines</h2>
          </header>
          <RejectTable rows={rejects} total={rejectedTotal} />
        </section>
      )}
      {sent.length === 0 ? null : (
        <section className="panel" data-testid="warnings">
          <header className="panel-head">
            <h2>Warnings</h2>
          </header>
          <WarningTable rows={warningRows} total={warningsTotal} />
        </section>
      )}
      <StoredEvents />
      <ShipPanel />
    </>
  );
}
