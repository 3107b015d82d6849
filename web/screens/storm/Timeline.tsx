import { BucketBadge } from '../../components/BucketBadge.tsx';
import { Link } from '../../components/Link.tsx';
import { formatCount, formatTimeMs } from '../../format.ts';
import { answerLabel, collapseTimeline, type TimelineRun } from '../../prepare/timeline.ts';
import type { StormDetail } from '../../queries/storms.ts';
import { useUrl } from '../../use-url.ts';

function latencyLabel(run: TimelineRun): string {
  if (run.latency === null) return '–';
  const { min, max } = run.latency;
  return min === max ? `${formatCount(min)} ms` : `${formatCount(min)}–${formatCount(max)} ms`;
}

/** Every attempt, identical neighbours folded: time, answer, latency, and what a correct client would have done. */
export function Timeline({ storm }: { storm: StormDetail }) {
  const { link } = useUrl();
  const runs = collapseTimeline(storm.timeline);
  const eventLink = (id: string, ts: number) =>
    link('/events', {
      server: storm.server,
      client: storm.client,
      from: new Date(storm.firstTs).toISOString(),
      to: new Date(storm.lastTs + 1).toISOString(),
      event: id,
      at: ts,
    });
  return (
    <section className="panel" data-testid="timeline">
      <header className="panel-head">
        <h2>Attempt timeline</h2>
        <span className="muted">
          {formatCount(storm.timeline.length)} attempts in {formatCount(runs.length)} rows · times UTC
        </span>
      </header>
      <div className="table-wrap">
        <table className="table timeline">
          <thead>
            <tr>
              <th scope="col" className="num">
                #
              </th>
              <th scope="col">Time</th>
              <th scope="col">Answer</th>
              <th scope="col" className="num">
                Latency
              </th>
              <th scope="col">Bucket</th>
              <th scope="col">What a correct client would have done</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.first.id} className={run.first.avoidable ? 'avoidable' : 'needed'}>
                <td className="num">
                  {run.count === 1
                    ? formatCount(run.position)
                    : `${formatCount(run.position)}–${formatCount(run.position + run.count - 1)}`}
                </td>
                <td className="nowrap">
                  <Link href={eventLink(run.first.id, run.first.ts)}>{formatTimeMs(run.first.ts)}</Link>
                  {run.count > 1 ? <div className="muted small">to {formatTimeMs(run.last.ts)}</div> : null}
                </td>
                <td className="nowrap">{answerLabel(run.first)}</td>
                <td className="num nowrap">{latencyLabel(run)}</td>
                <td>
                  <BucketBadge bucket={run.first.bucket} kind={run.first.kind} />
                </td>
                <td className="gate">
                  {run.count > 1 ? <strong>{formatCount(run.count)} × </strong> : null}
                  {run.first.gate}
                  {run.first.blockedBy === null ? null : (
                    <span className="block-chip" title="What the refusal blocked">
                      blocked by {run.first.blockedBy}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
