import { useState } from 'react';
import { TableScroll } from '../../components/TableScroll.tsx';
import {
  bodyOf,
  EMPTY_DRAFT,
  faultPlace,
  fieldAt,
  type OverrideDraft,
  type OverridesBody,
} from '../../prepare/overrides.ts';
import { putOverrides } from '../../queries/servers.ts';
import { ApiFailure } from '../../query-client.ts';
import { EditorForm } from './EditorForm.tsx';
import { OverrideRow } from './OverrideRow.tsx';
import { useReclassify } from './use-reclassify.ts';

interface OverridesEditorProps {
  server: string;
  drafts: OverrideDraft[];
  onDone: () => void;
}

/** Edit the override list as rows; saving reclassifies the server's stored failures and says how many changed. */
export function OverridesEditor({ server, drafts: initial, onDone }: OverridesEditorProps) {
  const [drafts, setDrafts] = useState(initial);
  const [local, setLocal] = useState<{ row: number; message: string } | null>(null);
  const save = useReclassify((body: OverridesBody) => putOverrides(server, body));
  const field = save.error instanceof ApiFailure ? save.error.field : null;
  const fault = local === null ? fieldAt(field) : { row: local.row, input: 'code' as const };
  const change = (row: number, patch: Partial<OverrideDraft>) =>
    setDrafts((list) => list.map((draft, index) => (index === row ? { ...draft, ...patch } : draft)));
  const submit = () => {
    const built = bodyOf(drafts);
    setLocal(built.ok ? null : built);
    if (built.ok) save.mutate(built.body);
    else save.reset();
  };
  return (
    <EditorForm
      save={save}
      what="the overrides"
      onSubmit={submit}
      onDone={onDone}
      fault={
        field === null ? null : (
          <p className="small" data-testid="override-fault">
            Field <code>{field}</code>
            {fault === null ? '' : `: ${faultPlace(fault)}, marked above`}.
          </p>
        )
      }
    >
      <p className="small muted">
        Each row re-maps one JSON-RPC code or HTTP status of this server to a bucket and a kind, before the default
        rules.
      </p>
      {drafts.length > 0 ? (
        <TableScroll>
          <table className="table stack-on-phone override-rows">
            <thead>
              <tr>
                <th scope="col">Match</th>
                <th scope="col">Code</th>
                <th scope="col">Bucket</th>
                <th scope="col">Kind</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {drafts.map((draft, row) => (
                <OverrideRow
                  // Rows have no identity of their own; the index is what the API's field names too.
                  // biome-ignore lint/suspicious/noArrayIndexKey: see above
                  key={row}
                  draft={draft}
                  row={row}
                  refused={fault?.row === row ? (fault.input ?? 'row') : null}
                  onChange={(patch) => change(row, patch)}
                  onRemove={() => {
                    setDrafts((list) => list.filter((_, index) => index !== row));
                    setLocal(null);
                    save.reset();
                  }}
                />
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="empty">No overrides: saving an empty list returns this server to the default rules.</p>
      )}
      <div>
        <button type="button" onClick={() => setDrafts((list) => [...list, EMPTY_DRAFT])}>
          Add override
        </button>
      </div>
      {local !== null ? (
        <p role="alert" className="error-note">
          Row {local.row + 1}: {local.message}. Nothing was sent.
        </p>
      ) : null}
    </EditorForm>
  );
}
