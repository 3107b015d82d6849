import { useQuery } from '@tanstack/react-query';
import { isActiveStorm } from '../../../shared/analysis/storm-model.ts';
import { BucketBadge } from '../../components/BucketBadge.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Link } from '../../components/Link.tsx';
import { formatCount, formatDateTime, formatDuration, formatShare, shareOf } from '../../format.ts';
import { explainKind } from '../../prepare/explain-event.ts';
import { correctSender, STORM_KIND_LABEL, stormTarget } from '../../prepare/storms.ts';
import { stormQuery } from '../../queries/storms.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { Timeline } from './Timeline.tsx';

/** One storm: whose, how big, since when, what started it, what a correct sender would have done, attempt by attempt. */
export function StormScreen({ id }: { id: string }) {
  const { link } = useUrl();
  const storm = useQuery(stormQuery(id));
  const data = storm.data;
  if (data === undefined) {
    return (
      <>
        <h1 className="screen-title">Storm</h1>
        {storm.isError ? (
          <ErrorNote error={storm.error} what="the storm" onRetry={() => storm.refetch()} />
        ) : (
          <div className="skeleton" style={{ height: 480 }} aria-busy="true" />
        )}
      </>
    );
  }
  const advice = explainKind(data.firstFailure.bucket, data.firstFailure.kind);
  const serverHref = link(routePath({ name: 'server', server: data.server }));
  return (
    <>
      <nav className="crumbs" aria-label="Breadcrumb">
        <Link href={link('/servers')}>Servers</Link> / <Link href={serverHref}>{data.server}</Link> /
      </nav>
      <div className="screen-head">
        <h1 className="screen-title">
          {STORM_KIND_LABEL[data.kind]}: {data.actor} → {data.counterpart}
        </h1>
        {isActiveStorm(data, Date.now()) ? <span className="pill pill-live">active</span> : null}
      </div>
      <p className="storm-title" data-testid="storm-title">
        {data.title}
      </p>
      {data.sentBy === 'server' ? (
        <p className="muted" data-testid="storm-sender">
          These requests were sent by the server {data.server} to its client {data.client}: this storm is the server's
          conduct, not the client's.
        </p>
      ) : null}
      <p className="target">{stormTarget(data)}</p>
      <ul className="totals compact">
        <Fact label="Attempts" value={formatCount(data.attempts)} testId="storm-attempts" />
        <Fact
          label="Avoidable"
          value={formatCount(data.avoidable)}
          note={`${formatShare(shareOf(data.avoidable, data.attempts))} of attempts`}
          testId="storm-avoidable"
        />
        <Fact label="Span" value={formatDuration(data.lastTs - data.firstTs)} note={formatDateTime(data.firstTs)} />
      </ul>
      <section className="panel explain">
        <h2>
          Started with <BucketBadge bucket={data.firstFailure.bucket} kind={data.firstFailure.kind} />
        </h2>
        <p>{advice.means}</p>
        <p>
          <strong>{correctSender(data)}:</strong> {advice.clientShould}
        </p>
      </section>
      <Timeline storm={data} />
    </>
  );
}

function Fact({ label, value, note, testId }: { label: string; value: string; note?: string; testId?: string }) {
  return (
    <li className="total">
      <span className="label">{label}</span>
      <span className="value" data-testid={testId}>
        {value}
      </span>
      {note ? <span className="share">{note}</span> : null}
    </li>
  );
}
