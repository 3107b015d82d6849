import { type DragEvent, useRef, useState } from 'react';

interface DropZoneProps {
  onFiles: (files: readonly File[]) => void;
}

/**
 * Drop log files here, or pick them; each is read in the browser and sent in batches. The picker takes any file: a
 * rotated log (`access.log.1`, `access.log.2.gz`) has no extension to filter by, and its content says what it is.
 */
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
      aria-label="Upload log files"
      data-testid="drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <p className="drop-title">Drop log files here</p>
      <p className="muted small">
        Native NDJSON events, nginx and Envoy access logs, or the logs agent hosts and MCP bridges write themselves
        (Claude Desktop, VS Code, Cursor and more), plain or gzip-compressed. Each file is read in your browser and its
        format detected from its first lines; events and access logs are sent in batches of up to 5,000 lines, a host's
        log whole. Re-sending a file is harmless: stored events count as duplicates.
      </p>
      <button type="button" className="primary" onClick={() => input.current?.click()}>
        Choose files…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        className="visually-hidden"
        aria-label="Log files"
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
