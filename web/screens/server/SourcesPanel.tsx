import { SOURCE_SAMPLE } from '../../../shared/source-formats.ts';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { ShareBar } from '../../components/ShareBar.tsx';
import { formatCount, formatShare, shareOf } from '../../format.ts';
import type { ServerDetail } from '../../queries/servers.ts';

/**
 * Where this server's records came from (issue 37): per log format, its records, the share of them that carry a
 * JSON-RPC frame, and what the format cannot show of an outcome. A server seen only through access logs or a bridge
 * that hides results looks healthier than it is; this says so beside the numbers.
 */
export function SourcesPanel({ query }: { query: PanelQuery<ServerDetail> }) {
  return (
    <Panel
      title="Where its records came from"
      what="the sources of its records"
      query={query}
      minHeight={120}
      isEmpty={(data) => data.sources.formats.length === 0}
      empty="No records of this server in this range."
      testId="server-sources"
    >
      {(data) => (
        <>
          <table className="table sources">
            <thead>
              <tr>
                <th scope="col">Log</th>
                <th scope="col" className="num">
                  {data.sources.sampled ? 'Share of records' : 'Records'}
                </th>
                <th scope="col">With frames</th>
              </tr>
            </thead>
            <tbody>
              {data.sources.formats.map((row) => {
                const known = row.records - row.framesUnknown;
                const share = shareOf(row.withFrames, known);
                return (
                  <tr key={row.format ?? 'native'} data-testid="source-row">
                    <th scope="row">
                      {row.label}
                      {row.note === null ? null : <p className="muted small source-note">{row.note}</p>}
                    </th>
                    <td className="num">
                      {data.sources.sampled
                        ? formatShare(shareOf(row.records, data.sources.records))
                        : formatCount(row.records)}
                    </td>
                    <td className="nowrap">
                      {known === 0 ? (
                        <span className="muted">not known (stored before this was kept)</span>
                      ) : (
                        <>
                          <ShareBar value={share ?? 0} max={1} tone="era" /> {formatShare(share)}
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p className="muted small">
            Every stored record counts here, server events (stderr lines, exits) too; a record with frames shows what
            was asked and answered.
            {data.sources.sampled ? ` Shares of the newest ${formatCount(SOURCE_SAMPLE)} records of the range.` : ''}
          </p>
        </>
      )}
    </Panel>
  );
}
