import { useQuery } from '@tanstack/react-query';
import { AvoidableMark, BucketBadge } from '../../components/BucketBadge.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Json } from '../../components/Json.tsx';
import { Link } from '../../components/Link.tsx';
import { formatDateTime } from '../../format.ts';
import { factsOf } from '../../prepare/actionability.ts';
import { eraText } from '../../prepare/eras.ts';
import { explainEvent, gateText } from '../../prepare/explain-event.ts';
import { type JoinedRecord, notCountedHint, recordLabel } from '../../prepare/joined-records.ts';
import { originText } from '../../prepare/origin.ts';
import { eventAnswerLabel } from '../../prepare/timeline.ts';
import { eventQuery } from '../../queries/events.ts';
import { routePath } from '../../router.ts';
import { applyPatch, hrefOf } from '../../url-state.ts';
import { useUrl } from '../../use-url.ts';
import { BitEvidence } from '../actionability/BitEvidence.tsx';
import { CallRounds } from './CallRounds.tsx';
import { requestLabel } from './EventTable.tsx';
import type { EventSelection } from './filters.ts';
import { JoinedRecords } from './JoinedRecords.tsx';
import { ProxyFacts } from './ProxyFacts.tsx';

function missingFrame(source: string): string {
  return source === 'proxy' ? 'not logged (a proxy access log carries no JSON-RPC body)' : 'not in the log';
}

interface EventDetailProps {
  selection: EventSelection;
  onClose: () => void;
  /** Called when the reader follows the link to the other record of the request. */
  onFollow: () => void;
}

/**
 * One event: which observer logged it, why it landed in its bucket, what the client should have done, and its frames
 * as logged; with the other record of the same request beside it once the two are joined.
 */
export function EventDetail({ selection, onClose, onFollow }: EventDetailProps) {
  const { link, pathname, params } = useUrl();
  const query = useQuery(eventQuery(selection.id, selection.at, selection.server));
  const event = query.data;
  const close = (
    <button type="button" className="quiet close" onClick={onClose} aria-label="Close the event">
      ×
    </button>
  );
  if (event === undefined) {
    return (
      <aside className="panel event-detail" id="event-detail" aria-busy={!query.isError}>
        {close}
        {query.isError ? (
          <ErrorNote error={query.error} what="the event" onRetry={() => query.refetch()} />
        ) : (
          <div className="skeleton" style={{ height: 360 }} />
        )}
      </aside>
    );
  }
  const text = explainEvent(event);
  const hint = notCountedHint(event);
  const origin = originText(event.origin);
  const { partner } = event;
  const open = (record: Pick<JoinedRecord, 'id' | 'ts'>) =>
    hrefOf(pathname, applyPatch(params, { event: record.id, at: Date.parse(record.ts) }));
  return (
    <aside className="panel event-detail" id="event-detail" data-testid="event-detail" aria-label="Event">
      {close}
      <p className="record-of" data-testid="record-of">
        {recordLabel(event.source)}
        {hint === null ? null : <span className="muted"> · {hint}</span>}
      </p>
      <h2>
        <BucketBadge bucket={event.bucket} kind={event.kind} /> <AvoidableMark avoidable={event.avoidable} />
      </h2>
      <dl className="facts">
        <dt>When</dt>
        <dd>{formatDateTime(Date.parse(event.ts))}</dd>
        <dt>Who</dt>
        <dd>
          {event.client ?? 'no client'} →{' '}
          <Link href={link(routePath({ name: 'server', server: event.server }))}>{event.server}</Link>
        </dd>
        <dt>Request</dt>
        <dd>{requestLabel(event)}</dd>
        <dt>Answer</dt>
        <dd>
          {eventAnswerLabel(event)}
          {event.latencyMs === null ? '' : ` in ${event.latencyMs} ms`}
        </dd>
        {event.protocol === 'mcp' ? (
          <>
            <dt>Protocol</dt>
            <dd data-testid="event-era">MCP {eraText(event.era, event.protocolVersion)}</dd>
          </>
        ) : null}
        <dt>Read from</dt>
        <dd data-testid="event-origin">{origin.read}</dd>
      </dl>
      {origin.details.length === 0 && event.origin.note === null ? null : (
        <div className="origin-notes" data-testid="event-origin-notes">
          {origin.details.map((detail) => (
            <p key={detail} className="small">
              {detail}
            </p>
          ))}
          {event.origin.note === null ? null : (
            <p className="muted small">This source cannot show everything: {event.origin.note}.</p>
          )}
        </div>
      )}
      {event.call === null ? null : <CallRounds event={event} call={event.call} hrefOf={open} onFollow={onFollow} />}
      {partner === null ? (
        <ProxyFacts record={event} />
      ) : (
        <JoinedRecords open={{ ...event, partner }} hrefOf={open} onFollow={onFollow} />
      )}
      <h3>Why this bucket</h3>
      <p>{text.why}</p>
      <p className="muted small">
        Rule <code>{text.rule}</code>, read from <code>{text.evidence}</code>.
      </p>
      <h3>What the client should have done</h3>
      <p>{text.means}</p>
      <p>
        <strong>{text.clientShould}</strong>
      </p>
      <p className={event.avoidable ? 'gate-note avoidable' : 'gate-note'}>
        {gateText(event.avoidable, event.gateReason, event.blockedBy)}
      </p>
      {event.actionability === null ? null : (
        <>
          {event.actionability.hidden.failure ? (
            <p className="warn-text" data-testid="hidden-failure-note">
              A hidden failure: the answer looks successful, but its text says the call failed
              {event.actionability.hidden.throttle ? ' (the caller is rate limited)' : ''}.
            </p>
          ) : null}
          <h3>What its typed fields let a client decide</h3>
          <BitEvidence reading={event.actionability.control} />
          <p className="muted small">With the HTTP status too: {factsOf(event.actionability.transport.profile)}.</p>
          <h3>With its text read</h3>
          <BitEvidence reading={event.actionability.content} />
        </>
      )}
      {event.identity ? (
        <p className="muted small">
          Identity <code>{event.identity}</code>
        </p>
      ) : null}
      <Json value={event.request} label="Request frame" missing={missingFrame(event.source)} />
      <Json value={event.response} label="Response frame" missing={missingFrame(event.source)} />
    </aside>
  );
}
