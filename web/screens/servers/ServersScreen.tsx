import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/Panel.tsx';
import { UrlSearch } from '../../components/UrlSearch.tsx';
import { readServerTableState, serverTable } from '../../prepare/servers.ts';
import { serversQuery } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';
import { ServerTable } from './ServerTable.tsx';

/** One row per server; search and sort live in the URL. */
export function ServersScreen() {
  const { range, params, setParams } = useUrl();
  const state = readServerTableState(params);
  const servers = useQuery(serversQuery({ range }));
  const search = <UrlSearch label="Search servers" />;
  return (
    <>
      <h1 className="screen-title">Servers</h1>
      <Panel
        title="Traffic per server"
        what="the servers"
        query={servers}
        minHeight={320}
        actions={search}
        isEmpty={(data) => data.servers.length === 0}
        empty="No server has sent or received traffic yet."
        testId="server-list"
      >
        {(data) => {
          const rows = serverTable(data.servers, state);
          if (rows.length === 0) return <p className="empty">No server name contains “{state.q}”.</p>;
          return (
            <ServerTable
              rows={rows}
              state={state}
              onSort={(sort, dir) => setParams({ sort, dir }, { replace: true })}
            />
          );
        }}
      </Panel>
    </>
  );
}
