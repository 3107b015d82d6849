import { useState } from 'react';
import { putDiscovery } from '../../queries/servers.ts';
import { EditorForm } from './EditorForm.tsx';
import { useReclassify } from './use-reclassify.ts';

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
  const [text, setText] = useState(() => JSON.stringify(source ?? TEMPLATE, null, 2));
  const [syntax, setSyntax] = useState<string | null>(null);
  const save = useReclassify((document: unknown) => putDiscovery(server, document));
  const submit = () => {
    const parsed = parse(text);
    setSyntax(parsed.ok ? null : parsed.message);
    if (parsed.ok) save.mutate(parsed.value);
  };
  return (
    <EditorForm save={save} what="the document" onSubmit={submit} onDone={onDone}>
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
    </EditorForm>
  );
}
