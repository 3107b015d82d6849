import { DropZone } from './DropZone.tsx';
import { RecentIngest } from './RecentIngest.tsx';
import { RejectTable } from './RejectTable.tsx';
import { ShipPanel } from './ShipPanel.tsx';
import { UploadList } from './UploadList.tsx';
import { useIngest } from './use-ingest.ts';

/** Upload NDJSON logs from the browser, see what was stored and refused, and how to ship them otherwise. */
export function IngestScreen() {
  const { files, rejects, add, clear } = useIngest();
  const busy = files.some((file) => file.status !== 'done' && file.status !== 'failed');
  const rejectedTotal = files.reduce((sum, file) => sum + file.rejected, 0);
  return (
    <>
      <h1 className="screen-title">Ingest</h1>
      <section className="panel" data-testid="upload">
        <header className="panel-head">
          <h2>Upload logs</h2>
          {files.length > 0 ? (
            <button type="button" className="quiet" onClick={clear} disabled={busy}>
              Clear
            </button>
          ) : null}
        </header>
        <DropZone onFiles={add} />
        {files.length === 0 ? null : <UploadList files={files} />}
      </section>
      {files.length === 0 ? null : (
        <section className="panel" data-testid="rejects">
          <header className="panel-head">
            <h2>Rejected lines</h2>
          </header>
          <RejectTable rows={rejects} total={rejectedTotal} />
        </section>
      )}
      <RecentIngest />
      <ShipPanel />
    </>
  );
}
