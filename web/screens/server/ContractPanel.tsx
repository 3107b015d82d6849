import { type ReactNode, useState } from 'react';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import type { ServerDetail } from '../../queries/servers.ts';

export interface EditState {
  open: boolean;
  close: () => void;
}

interface ContractPanelProps {
  title: string;
  /** For the error sentence: "Could not load the code overrides". */
  what: string;
  query: PanelQuery<ServerDetail>;
  minHeight: number;
  testId: string;
  /** The panel's body: the contract as it is, or its editor while `edit.open`. */
  children: (data: ServerDetail, edit: EditState) => ReactNode;
}

/** A part of the server's contract: shown as it stands, edited in place after Edit. */
export function ContractPanel({ title, what, query, minHeight, testId, children }: ContractPanelProps) {
  const [open, setOpen] = useState(false);
  const edit = (
    <button type="button" onClick={() => setOpen(true)} disabled={open || query.data === undefined}>
      Edit
    </button>
  );
  return (
    <Panel title={title} what={what} query={query} minHeight={minHeight} actions={edit} testId={testId}>
      {(data) => children(data, { open, close: () => setOpen(false) })}
    </Panel>
  );
}
