import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { formatCount } from '../../format.ts';
import { invalidateAfterReclassify } from '../../queries/invalidate.ts';
import { putDiscovery } from '../../queries/servers.ts';

const TEMPLATE = { endpoints: [{ method: 'POST', path: '/mcp' }], methods: [] };

function parse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

interface DiscoveryEditorProps {
  server: string;
  source: unknown;
  onDone: () => void;
}

/** Edit the document as JSON; saving reclassifies the server's stored failures and says how many changed. */
export function DiscoveryEditor({ server, source, onDone }: DiscoveryEditorProps) {
  const client = useQueryClient();
  const [text, setText] = useState(() => JSON.stringify(source ?? TEMPLATE, null, 2));
  const [syntax, setSyntax] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (document: unknown) => putDiscovery(server, document),
    onSuccess: () => invalidateAfterReclassify(client),
  });
  const submit = () => {
    const parsed = parse(text);
    setSyntax(parsed.ok ? null : parsed.message);
    if (parsed.ok) save.mutate(parsed.value);
  };
  return (
    <form
      className="editor"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor="discovery-text">
        A plain declaration <code>{'{"endpoints":[{"method","path"}],"methods":[]}'}</code>, an A2A Agent Card or an MCP
        server card.
      </label>
      <textarea
        id="discovery-text"
        value={text}
        spellCheck={false}
        rows={12}
        onChange={(event) => setText(event.target.value)}
      />
      {syntax !== null ? (
        <p role="alert" className="error-note">
          Not valid JSON: {syntax}. Nothing was sent.
        </p>
      ) : null}
      {save.isError ? <ErrorNote error={save.error} what="the document" action="save" /> : null}
      {save.isSuccess ? (
        <p role="status" className="saved" data-testid="reclassified">
          Saved. {formatCount(save.data.reclassified)} stored event{save.data.reclassified === 1 ? '' : 's'}{' '}
          reclassified.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onDone}>
          {save.isSuccess ? 'Close' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}
