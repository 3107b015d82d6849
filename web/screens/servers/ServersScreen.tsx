import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Panel } from '../../components/Panel.tsx';
import { UrlSearch } from '../../components/UrlSearch.tsx';
import { formatCount } from '../../format.ts';
import { readServerTableState, serverTable } from '../../prepare/servers.ts';
import { scopeQuery } from '../../queries/scope.ts';
import { serversQuery } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';
import { ServerTable } from './ServerTable.tsx';

/**
 * Rows drawn at first. Laying out a table costs the browser far more than sorting it: 500 rows took ~250 ms a sort
 * click in Chromium, 100 rows stay under a frame's budget. The rest are a click away, and search finds any server.
 */
const PAGE_ROWS = 100;

/** One row per server; search and sort live in the URL. */
export function ServersScreen() {
  const { range, params, setParams } = useUrl();
  const [limit, setLimit] = useState(PAGE_ROWS);
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
        actions={
          <>
            {search}
            <DownloadButtons table={{ path: 'servers', query: scopeQuery({ range }) }} />
          </>
        }
        isEmpty={(data) => data.servers.length === 0}
        empty="No server has sent or received traffic yet."
        testId="server-list"
      >
        {(data) => {
          const rows = serverTable(data.servers, state);
          if (rows.length === 0) return <p className="empty">No server name contains “{state.q}”.</p>;
          return (
            <>
              <ServerTable
                rows={rows.slice(0, limit)}
                state={state}
                onSort={(sort, dir) => setParams({ sort, dir }, { replace: true })}
              />
              {rows.length > limit ? (
                <div className="panel-foot actions">
                  <span className="muted" data-testid="servers-shown">
                    The first {formatCount(limit)} of {formatCount(rows.length)} servers in this order.
                  </span>
                  <span className="actions">
                    <button type="button" onClick={() => setLimit(limit + PAGE_ROWS)}>
                      Show {formatCount(Math.min(PAGE_ROWS, rows.length - limit))} more
                    </button>
                    <button type="button" onClick={() => setLimit(rows.length)}>
                      Show all
                    </button>
                  </span>
                </div>
              ) : null}
            </>
          );
        }}
      </Panel>
    </>
  );
}
