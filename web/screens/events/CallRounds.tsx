import { BucketBadge } from '../../components/BucketBadge.tsx';
import { Link } from '../../components/Link.tsx';
import { formatTimeMs } from '../../format.ts';
import { contextAskedText, roundHeadline, roundRoles } from '../../prepare/eras.ts';

interface Round {
  id: string;
  ts: string;
  bucket: string;
  kind: string;
  continuation: boolean;
}

interface InputRequest {
  key: string;
  method: string;
  identity: string | null;
  includeContext?: string;
}

interface CallRoundsProps {
  event: { id: string; bucket: string; continuation: boolean; inputRequests: InputRequest[] };
  call: { rounds: Round[]; round: number; firstInLog: boolean };
  /** The address that opens a round on this screen, filters kept. */
  hrefOf: (round: { id: string; ts: string }) => string;
  onFollow: () => void;
}

/**
 * An MCP 2026-07-28 multi round-trip call (DOMAIN.md section 10): what this round did in it, which round it is, and
 * every round of the call in the log, each one a link.
 */
export function CallRounds({ event, call, hrefOf, onFollow }: CallRoundsProps) {
  return (
    <section className="call-rounds" aria-label="Rounds of this call" data-testid="call-rounds">
      <h3>A call in rounds</h3>
      {roundRoles(event).map((role) => (
        <p key={role}>{role}</p>
      ))}
      {event.inputRequests.length === 0 ? null : (
        <>
          <p>What the server asked the client for inside its answer (requests the server sent):</p>
          <ul className="input-requests" data-testid="input-requests">
            {event.inputRequests.map((request) => {
              const asked = contextAskedText(request.includeContext);
              return (
                <li key={request.key}>
                  <strong>{request.key}</strong>: <code>{request.method}</code>
                  {asked === null ? null : `, ${asked}`}
                  {request.identity === null ? null : <span className="muted"> · identity {request.identity}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
      <p data-testid="round-headline">
        <strong>{roundHeadline(call)}</strong>
      </p>
      <ol className="rounds">
        {call.rounds.map((round, i) => {
          const label = `Round ${i + 1}`;
          const what = round.continuation ? 'with the answers' : 'the request';
          return (
            <li key={round.id} aria-current={round.id === event.id ? 'step' : undefined}>
              {round.id === event.id ? (
                <span className="current-round">{label} (this event)</span>
              ) : (
                <Link href={hrefOf(round)} onClick={onFollow}>
                  {label}
                </Link>
              )}{' '}
              <span className="muted">
                {formatTimeMs(Date.parse(round.ts))} · {what} ·
              </span>{' '}
              <BucketBadge bucket={round.bucket} kind={round.kind} />
            </li>
          );
        })}
      </ol>
    </section>
  );
}
