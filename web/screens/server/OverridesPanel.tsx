import { BucketBadge } from '../../components/BucketBadge.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import type { PanelQuery } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { CODE_FIELD_LABEL, draftsOf, type OverrideDraft } from '../../prepare/overrides.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { ContractPanel } from './ContractPanel.tsx';
import { OverridesEditor } from './OverridesEditor.tsx';

const COLUMNS: Column<OverrideDraft>[] = [
  {
    label: 'Code',
    cell: (draft) => (
      <>
        {CODE_FIELD_LABEL[draft.field]} <code>{draft.code}</code>
      </>
    ),
  },
  { label: 'Classified as', cell: (draft) => <BucketBadge bucket={draft.bucket} kind={draft.kind} /> },
];

/** The operator's re-mapping of this server's codes: applied before the default rules, to stored events too. */
export function OverridesPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  return (
    <ContractPanel
      title="Code overrides"
      what="the code overrides"
      query={query}
      minHeight={80}
      testId="overrides-panel"
    >
      {(data, edit) => {
        const drafts = draftsOf(data.overrides);
        if (edit.open) return <OverridesEditor server={server} drafts={drafts} onDone={edit.close} />;
        if (drafts.length === 0) {
          return <p className="empty">None: every code of this server is read by the default rules.</p>;
        }
        return (
          <TableScroll>
            <DataTable
              columns={COLUMNS}
              rows={drafts}
              // The API does not forbid two rows for one code, so only the position tells rows apart.
              rowKey={(_, index) => index}
              stackOnPhone
            />
          </TableScroll>
        );
      }}
    </ContractPanel>
  );
}
