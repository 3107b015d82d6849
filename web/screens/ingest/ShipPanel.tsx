import { useEffect, useState } from 'react';
import { ingestSearch } from '../../queries/ingest-query.ts';

const ACCESS_LOG_QUERY = ingestSearch({ format: 'nginx-json', server: 'my-server', protocol: '' });

/** The command lines that ship logs to this very server, from the page's own origin. */
function shipCommands(origin: string): { label: string; command: string }[] {
  return [
    {
      label: 'One file with curl',
      command: `curl -H 'content-type: application/x-ndjson' --data-binary @client.ndjson ${origin}/api/v1/ingest`,
    },
    {
      label:
        'An access log with curl: format nginx-json, nginx-combined, envoy or envoy-json; server optional (else from discovery documents or the host)',
      command: `curl -H 'content-type: text/plain' --data-binary @access.log '${origin}/api/v1/ingest${ACCESS_LOG_QUERY}'`,
    },
    {
      label: 'Many files with the CLI (batches, progress, resumes where it stopped)',
      command: `npm run lens -- ingest logs/*.ndjson --url ${origin}`,
    },
  ];
}

function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);
  const copy = () => {
    // No clipboard outside a secure context (plain http to another host): that failure is shown too.
    Promise.resolve()
      .then(() => navigator.clipboard.writeText(text))
      .then(
        () => setState('copied'),
        () => setState('failed'),
      );
  };
  return (
    <button type="button" className="quiet copy" onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}

export function ShipPanel() {
  return (
    <section className="panel" data-testid="ship-logs">
      <header className="panel-head">
        <h2>Ship logs from the command line</h2>
      </header>
      <ul className="commands">
        {shipCommands(window.location.origin).map((item) => (
          <li key={item.label}>
            <p className="muted small">{item.label}</p>
            <div className="command">
              <code>{item.command}</code>
              <CopyButton text={item.command} />
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
