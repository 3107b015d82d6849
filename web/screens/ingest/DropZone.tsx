import { type DragEvent, useRef, useState } from 'react';

interface DropZoneProps {
  onFiles: (files: readonly File[]) => void;
}

const ACCEPT = '.ndjson,.jsonl,.json,.log,.txt,application/x-ndjson,application/jsonl,text/plain';

/** Drop NDJSON files here, or pick them; each is read in the browser and sent in batches. */
export function DropZone({ onFiles }: DropZoneProps) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const drop = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setOver(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) onFiles(files);
  };
  return (
    <section
      className={`drop-zone${over ? ' over' : ''}`}
      aria-label="Upload NDJSON files"
      data-testid="drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <p className="drop-title">Drop NDJSON files here</p>
      <p className="muted small">
        One event per line. Files are read in your browser and sent in batches of up to 5,000 lines; re-sending a file
        is harmless, stored events count as duplicates.
      </p>
      <button type="button" className="primary" onClick={() => input.current?.click()}>
        Choose files…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        className="visually-hidden"
        aria-label="NDJSON files"
        tabIndex={-1}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </section>
  );
}
