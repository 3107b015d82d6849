import { useQuery } from '@tanstack/react-query';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { counted, formatCount } from '../../format.ts';
import { BIT_LABEL, BIT_MEANING, BITS, VIEW_LABEL, VIEWS, type View } from '../../prepare/actionability.ts';
import { hiddenLine } from '../../prepare/hidden.ts';
import { actionabilityQuery } from '../../queries/actionability.ts';
import { useUrl } from '../../use-url.ts';
import { BitShare, ProfileList } from '../actionability/BitCells.tsx';

/** What this server's failures let a client decide from typed fields (DOMAIN.md section 8), in both views. */
export function ActionabilityPanel({ server }: { server: string }) {
  const { range, link } = useUrl();
  const query = useQuery(actionabilityQuery({ range, server }));
  return (
    <Panel
      title="What its errors let a client decide"
      what="the actionability of its failures"
      query={query}
      minHeight={140}
      isEmpty={(data) => data.control.failures === 0}
      empty="No failed request to this server in this range."
      testId="server-actionability"
      actions={
        <Link href={link('/actionability', { server })} className="head-link">
          Each failure’s fields →
        </Link>
      }
    >
      {(data) => {
        const columns: Column<View>[] = [
          { label: 'View', rowHeader: true, cell: (view) => VIEW_LABEL[view] },
          { label: 'Failures', num: true, cell: (view) => formatCount(data[view].failures) },
          ...BITS.map(
            (bit): Column<View> => ({
              label: BIT_LABEL[bit],
              num: true,
              title: BIT_MEANING[bit],
              cell: (view) => <BitShare counts={data[view]} bit={bit} />,
            }),
          ),
        ];
        return (
          <>
            <TableScroll>
              <DataTable columns={columns} rows={VIEWS} rowKey={(view) => view} stackOnPhone />
            </TableScroll>
            <p className="muted small" data-testid="server-hidden-line">
              {data.hidden.failures === 0
                ? 'No hidden failure: every failure here shows in typed fields or the HTTP status.'
                : `Of its ${counted(data.control.failures, 'failure')}, ${hiddenLine(data.hidden)}: answers that looked successful but whose text said the call failed (listed below).`}
            </p>
            <div className="grid">
              <div>
                <p className="muted small">The facts its failures gave together, from typed fields only:</p>
                <ProfileList counts={data.control} />
              </div>
              <div>
                <p className="muted small">With the text read:</p>
                <ProfileList counts={data.content} />
              </div>
            </div>
          </>
        );
      }}
    </Panel>
  );
}
