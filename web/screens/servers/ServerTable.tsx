import { BUCKET_LABEL, BUCKETS } from '../../buckets.ts';
import { BucketStrip } from '../../components/BucketStrip.tsx';
import { Link } from '../../components/Link.tsx';
import { SortHeader } from '../../components/SortHeader.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { formatCount, formatShare } from '../../format.ts';
import type { ServerTableRow, ServerTableState } from '../../prepare/servers.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

interface ServerTableProps {
  rows: ServerTableRow[];
  state: ServerTableState;
  onSort: (sort: string, dir: 'asc' | 'desc') => void;
}

export function ServerTable({ rows, state, onSort }: ServerTableProps) {
  const { link } = useUrl();
  const header = { sort: state.sort, dir: state.dir, onSort };
  return (
    <TableScroll>
      <table className="table sticky-first">
        <thead>
          <tr>
            <SortHeader column="server" {...header}>
              Server
            </SortHeader>
            <SortHeader column="requests" numeric {...header}>
              Requests
            </SortHeader>
            <th scope="col" className="col-mix">
              Mix
            </th>
            {BUCKETS.map((bucket) => (
              <SortHeader key={bucket} column={bucket} numeric {...header}>
                {BUCKET_LABEL[bucket]}
              </SortHeader>
            ))}
            <SortHeader column="avoidable" numeric {...header}>
              Avoidable
            </SortHeader>
            <SortHeader column="share" numeric {...header}>
              Avoid. %
            </SortHeader>
            <SortHeader column="discovery" {...header}>
              Discovery
            </SortHeader>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.server} data-testid={`server-row-${row.server}`}>
              <th scope="row">
                <Link href={link(routePath({ name: 'server', server: row.server }))}>{row.server}</Link>
              </th>
              <td className="num">{formatCount(row.requests)}</td>
              <td className="col-mix">
                <BucketStrip buckets={row.buckets} total={row.requests} />
              </td>
              {BUCKETS.map((bucket) => (
                <td key={bucket} className={`num ${row.buckets[bucket] === 0 ? 'muted' : ''}`}>
                  {formatCount(row.buckets[bucket])}
                </td>
              ))}
              <td className="num">{formatCount(row.avoidable)}</td>
              <td className="num">{formatShare(row.share)}</td>
              <td>{row.hasDiscovery ? 'known' : <span className="pill pill-warn">missing</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
