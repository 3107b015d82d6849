import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { formatDateTime } from '../../format.ts';
import { textRuleLabel } from '../../prepare/hidden.ts';
import { type EventView, eventsQuery } from '../../queries/events.ts';
import { useUrl } from '../../use-url.ts';
import { requestLabel } from '../events/EventTable.tsx';
import { type Noun, shownLine } from '../events/rows.ts';

const HIDDEN: Noun = ['hidden failure', 'hidden failures'];

/**
 * Answers that look successful (no error, no `isError`, a 2xx) but whose text says the call failed, or that the
 * caller is rate limited, newest first: each with the text that shows it and the rule that read it. Their bucket is
 * what typed fields say; they are findings about the server (DOMAIN.md section 8). Of one server, or of all.
 */
export function HiddenFailures({ server }: { server?: string }) {
  const { range, link } = useUrl();
  const query = useInfiniteQuery(eventsQuery({ range, hidden: 'failure', ...(server && { server }) }, 25));
  const pages = query.data?.pages;
  return (
    <Panel
      title="Hidden failures: successes whose text says they failed"
      what="the hidden failures"
      query={{ ...query, data: pages }}
      minHeight={120}
      isEmpty={(loaded) => loaded.every((page) => page.events.length === 0)}
      empty="No answer in this range looks successful while its text says the call failed."
      testId="hidden-failures"
    >
      {(loaded) => {
        const events = loaded.flatMap((page) => page.events);
        const open = (event: EventView) =>
          link('/events', { server: event.server, event: event.id, at: Date.parse(event.ts) });
        return (
          <>
            <p className="muted small">
              No client’s error handling sees these: no error, no <code>isError</code>, HTTP {'<'} 400. Only the text
              says so.
            </p>
            <ul className="failure-list" data-testid="hidden-list">
              {events.map((event) => (
                <HiddenRow key={event.seq} event={event} href={open(event)} showServer={server === undefined} />
              ))}
            </ul>
            <p className="muted small">{shownLine(events.length, loaded[0]?.total ?? null, HIDDEN)}</p>
            {query.hasNextPage ? (
              <button
                type="button"
                className="quiet"
                onClick={() => query.fetchNextPage()}
                disabled={query.isFetchingNextPage}
              >
                Older hidden failures
              </button>
            ) : null}
          </>
        );
      }}
    </Panel>
  );
}

function HiddenRow({ event, href, showServer }: { event: EventView; href: string; showServer: boolean }) {
  const reading = event.actionability;
  const shown = reading?.content.text?.D;
  return (
    <li data-testid="hidden-failure">
      <div className="failure-head">
        <Link href={href} title="Open the event">
          {formatDateTime(Date.parse(event.ts))}
        </Link>{' '}
        {showServer ? <strong>{event.server}</strong> : null} <span className="muted">{requestLabel(event)}</span>
        {reading?.hidden.throttle ? <span className="pill pill-warn">rate limited</span> : null}
      </div>
      {shown === undefined ? null : (
        <p className="hidden-text">
          <q>{shown.span}</q> <span className="muted small">({textRuleLabel(shown.rule)})</span>
        </p>
      )}
    </li>
  );
}
