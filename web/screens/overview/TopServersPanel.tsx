import { useQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { ShareBar } from '../../components/ShareBar.tsx';
import { formatCount, formatShare } from '../../format.ts';
import { type Ranked, topServers } from '../../prepare/servers.ts';
import type { Scope } from '../../queries/scope.ts';
import { serversQuery } from '../../queries/servers.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

function RankList({ title, rows, kind }: { title: string; rows: Ranked[]; kind: 'refusal' | 'avoidable' }) {
  const { link } = useUrl();
  const max = rows[0]?.value ?? 0;
  return (
    <div className="rank">
      <h3>{title}</h3>
      {rows.length === 0 ? <p className="muted">None in this range.</p> : null}
      <ol>
        {rows.map((row) => (
          <li key={row.server}>
            <Link href={link(routePath({ name: 'server', server: row.server }))}>{row.server}</Link>
            <ShareBar value={row.value} max={max} tone={kind} />
            <span className="num">{formatCount(row.value)}</span>
            <span className="num muted">{formatShare(row.share)}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Where refusals land and whose traffic a correct client would not have sent. */
export function TopServersPanel({ scope }: { scope: Scope }) {
  const servers = useQuery(serversQuery(scope));
  return (
    <Panel
      title="Top servers"
      what="the servers"
      query={servers}
      minHeight={300}
      isEmpty={(data) => data.servers.length === 0}
      empty="No server has sent or received traffic yet."
      testId="top-servers"
    >
      {(data) => (
        <div className="rank-pair">
          <RankList title="By refusals" rows={topServers(data.servers, 'refusal', 5)} kind="refusal" />
          <RankList title="By avoidable requests" rows={topServers(data.servers, 'avoidable', 5)} kind="avoidable" />
        </div>
      )}
    </Panel>
  );
}
