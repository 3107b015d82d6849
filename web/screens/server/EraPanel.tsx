import { Link } from '../../components/Link.tsx';
import { Panel, type PanelQuery } from '../../components/Panel.tsx';
import { ShareBar } from '../../components/ShareBar.tsx';
import { counted, formatCount, formatShare, shareOf } from '../../format.ts';
import { askedInRoundsText, onlyLegacy, roundsPerCallText, serverEraHeadline } from '../../prepare/eras.ts';
import type { ServerDetail } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';

const ERA_ROWS = [
  { key: '2026', label: '2026-07-28 (stateless)' },
  { key: '2025', label: '2025 (sessions)' },
  { key: 'none', label: 'not told by the request' },
] as const;

/**
 * The protocol eras of the requests this server answered, and the input requests it made in MCP 2026-07-28's
 * multi round-trip calls (DOMAIN.md section 10).
 */
export function EraPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  const { link } = useUrl();
  return (
    <Panel
      title="Protocol eras and input requests"
      what="the protocol eras"
      query={query}
      minHeight={200}
      isEmpty={(data) => data.counts.total === 0}
      empty="No requests to this server in this range."
      testId="server-eras"
    >
      {(data) => {
        const { requests, legacyProbes, inputRequests, speaks } = data.eras;
        const total = requests['2025'] + requests['2026'] + requests.none;
        return (
          <>
            <p className="headline" data-testid="era-headline">
              {onlyLegacy(speaks) ? <span className="pill pill-warn era-pill">2025 only</span> : null}
              {serverEraHeadline(speaks)}
            </p>
            <table className="table era-mix">
              <tbody>
                {ERA_ROWS.map(({ key, label }) => (
                  <tr key={key} className={requests[key] === 0 ? 'muted' : undefined}>
                    <th scope="row">{label}</th>
                    <td className="num">{formatCount(requests[key])}</td>
                    <td className="nowrap">
                      <ShareBar value={shareOf(requests[key], total) ?? 0} max={1} tone="era" />{' '}
                      {formatShare(shareOf(requests[key], total))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {legacyProbes > 0 ? (
              <p className="small">
                {counted(legacyProbes, 'era probe')} of 2026-07-28 clients answered as a 2025-only server answers them:
                those clients went on with sessions.
              </p>
            ) : null}
            <h3>Input requests (calls in rounds)</h3>
            {inputRequests.pending + inputRequests.continuations === 0 ? (
              <p className="muted">This server asked for no input in this range.</p>
            ) : (
              <dl className="facts compact" data-testid="input-requests">
                <dt>Asked for input</dt>
                <dd>
                  <Link href={link('/events', { server, bucket: 'pending' })}>
                    {counted(inputRequests.pending, 'round')}
                  </Link>{' '}
                  answered input_required
                </dd>
                <dt>Answers sent</dt>
                <dd>{counted(inputRequests.continuations, 'round')} carried the answers</dd>
                <dt>What it asked</dt>
                <dd data-testid="asked-in-rounds">
                  {askedInRoundsText(data.sentByServer.inRounds)}{' '}
                  <span className="muted">(its requests, each a send of its own identity)</span>
                </dd>
                <dt>Calls that asked</dt>
                <dd>{formatCount(inputRequests.calls)}</dd>
                <dt>Round trips per call</dt>
                <dd data-testid="rounds-per-call">
                  {roundsPerCallText(inputRequests.roundsPerCall)}{' '}
                  <span className="muted">({counted(inputRequests.rounds, 'round')} of the calls that asked)</span>
                </dd>
              </dl>
            )}
          </>
        );
      }}
    </Panel>
  );
}
