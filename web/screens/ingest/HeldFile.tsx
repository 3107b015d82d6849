import type { LogFormat } from '../../../shared/proxy-logs/detect.ts';
import { Choice } from '../../components/Choice.tsx';
import { formatBytes } from '../../format.ts';
import { type IngestSettings, needsStart, needsZone } from '../../queries/ingest-query.ts';
import {
  detectionText,
  FORMAT_LABEL,
  isBridgeFormat,
  isHostFormat,
  isProxyFormat,
  LOG_FORMATS,
  PROTOCOL_LABEL,
} from './formats.ts';
import type { FileUpload } from './use-ingest.ts';

const PROTOCOLS: readonly IngestSettings['protocol'][] = ['', 'mcp', 'a2a'];

interface HeldFileProps {
  file: FileUpload;
  onChange: (id: number, patch: Partial<IngestSettings>) => void;
  onSend: (file: FileUpload) => void;
  onRemove: (id: number) => void;
}

function serverHint(format: LogFormat): string {
  if (isBridgeFormat(format)) {
    return 'Every record of this log belongs to this server (the bridge does not name it): left empty, they are stored under "unknown". The whole file is sent at once, as a request and its answer may be far apart.';
  }
  if (isHostFormat(format)) {
    return "Left empty, each record's server is the name the log gives it. The whole file is sent at once, as a request and its answer may be far apart.";
  }
  return format === 'nginx-combined'
    ? 'Every line of this file belongs to this server. This format logs no host: left empty, a line no discovery document maps is stored under "unknown", with a warning.'
    : "Every line of this file belongs to this server. Left empty, each line's server comes from your discovery documents, else from the line's host, with a warning per line.";
}

/** What an empty server field stands for. */
function serverPlaceholder(format: LogFormat): string {
  if (isBridgeFormat(format)) return 'unknown';
  return isHostFormat(format) ? 'the name the log gives' : 'from discovery documents / host';
}

/** What the time fields mean, for a format that asks for one: null for the others. */
function timeHint(format: LogFormat): string | null {
  if (needsZone(format)) {
    return "Its times carry no zone: give the zone of the machine that wrote it. Left empty, this server's zone is used, and the answer says which.";
  }
  if (needsStart(format)) {
    return 'Its lines may carry no time: those are stamped from the start you give (left empty, the time you send it), a millisecond apart, so that their order survives; no latency is measured for them.';
  }
  return null;
}

/** A chosen file that waits for the operator: what its first lines look like, how to read it, and Send. */
export function HeldFile({ file, onChange, onSend, onRemove }: HeldFileProps) {
  const reading = file.status === 'detecting';
  const { format, server, protocol, tz = '', start = '' } = file.settings;
  const proxy = isProxyFormat(format);
  return (
    <li className="upload upload-held" data-testid="held-file">
      <form
        aria-label={`How to read ${file.name}`}
        onSubmit={(event) => {
          event.preventDefault();
          onSend(file);
        }}
      >
        <div className="upload-head">
          <strong className="upload-name">{file.name}</strong>
          <span className="muted small nowrap">
            {file.gzip ? 'gzip · ' : ''}
            {formatBytes(file.bytesTotal)}
          </span>
        </div>
        <p
          className={`detected${file.detected === null ? ' detected-none' : ''}`}
          data-testid="detected-format"
          role="status"
        >
          {reading ? 'Reading its first lines…' : detectionText(file.detected ?? null)}
        </p>
        <div className="field-row ingest-settings">
          <label className="field">
            <span>Format</span>
            <Choice
              value={format}
              disabled={reading}
              options={LOG_FORMATS}
              label={(option) => FORMAT_LABEL[option]}
              onChange={(picked) => onChange(file.id, { format: picked })}
            />
          </label>
          {proxy ? (
            <label className="field field-server">
              <span>Server (optional)</span>
              <input
                value={server}
                maxLength={200}
                placeholder={serverPlaceholder(format)}
                spellCheck={false}
                autoCapitalize="off"
                onChange={(event) => onChange(file.id, { server: event.target.value })}
              />
            </label>
          ) : null}
          {needsZone(format) ? (
            <label className="field">
              <span>Time zone of its times</span>
              <input
                value={tz}
                maxLength={64}
                placeholder="the server's zone, e.g. Europe/Berlin"
                spellCheck={false}
                autoCapitalize="off"
                onChange={(event) => onChange(file.id, { tz: event.target.value })}
              />
            </label>
          ) : null}
          {needsStart(format) ? (
            <label className="field">
              <span>When it starts (your time)</span>
              <input
                type="datetime-local"
                step={1}
                value={start}
                onChange={(event) => onChange(file.id, { start: event.target.value })}
              />
            </label>
          ) : null}
          {proxy && !isHostFormat(format) ? (
            <label className="field">
              <span>Protocol (optional)</span>
              <Choice
                value={protocol}
                options={PROTOCOLS}
                label={(option) => (option === '' ? 'Not set (MCP unless mapped)' : PROTOCOL_LABEL[option])}
                onChange={(picked) => onChange(file.id, { protocol: picked })}
              />
            </label>
          ) : null}
        </div>
        {proxy ? <p className="muted small held-hint">{serverHint(format)}</p> : null}
        {timeHint(format) === null ? null : (
          <p className="muted small held-hint" data-testid="time-hint">
            {timeHint(format)}
          </p>
        )}
        <div className="actions held-actions">
          <button type="submit" className="primary" disabled={reading}>
            Send
          </button>
          <button type="button" className="quiet" onClick={() => onRemove(file.id)}>
            Remove
          </button>
        </div>
      </form>
    </li>
  );
}
