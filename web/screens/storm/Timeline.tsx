import { BucketBadge } from '../../components/BucketBadge.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { DownloadButtons } from '../../components/DownloadButtons.tsx';
import { Link } from '../../components/Link.tsx';
import { formatCount, formatTimeMs } from '../../format.ts';
import { correctSender } from '../../prepare/storms.ts';
import { answerLabel, collapseTimeline, sentLabel, type TimelineRun } from '../../prepare/timeline.ts';
import type { StormDetail } from '../../queries/storms.ts';
import { useUrl } from '../../use-url.ts';

function latencyLabel(run: TimelineRun): string {
  if (run.latency === null) return '–';
  const { min, max } = run.latency;
  return min === max ? `${formatCount(min)} ms` : `${formatCount(min)}–${formatCount(max)} ms`;
}

/** Every attempt, identical neighbours folded: time, method, answer, latency, and what a correct sender would have done. */
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
  const columns: Column<TimelineRun>[] = [
    {
      label: '#',
      num: true,
      cell: (run) =>
        run.count === 1
          ? formatCount(run.position)
          : `${formatCount(run.position)}–${formatCount(run.position + run.count - 1)}`,
    },
    {
      label: 'Time',
      className: 'nowrap',
      cell: (run) => (
        <>
          <Link href={eventLink(run.first.id, run.first.ts)}>{formatTimeMs(run.first.ts)}</Link>
          {run.count > 1 ? <div className="muted small">to {formatTimeMs(run.last.ts)}</div> : null}
        </>
      ),
    },
    {
      label: 'Method',
      className: 'nowrap',
      cell: (run) => sentLabel(run.first) ?? <span className="muted">no body</span>,
    },
    { label: 'Answer', className: 'nowrap', cell: (run) => answerLabel(run.first) },
    { label: 'Latency', num: true, className: 'nowrap', cell: latencyLabel },
    { label: 'Bucket', cell: (run) => <BucketBadge bucket={run.first.bucket} kind={run.first.kind} /> },
    {
      label: `What ${correctSender(storm).toLowerCase()} would have done`,
      className: 'gate',
      cell: (run) => (
        <>
          {run.count > 1 ? <strong>{formatCount(run.count)} × </strong> : null}
          {run.first.gate}
          {run.first.blockedBy === null ? null : (
            <span className="block-chip" title="What the refusal blocked">
              blocked by {run.first.blockedBy}
            </span>
          )}
        </>
      ),
    },
  ];
  return (
    <section className="panel" data-testid="timeline">
      <header className="panel-head">
        <h2>Attempt timeline</h2>
        <span className="muted">
          {formatCount(storm.timeline.length)} attempts in {formatCount(runs.length)} rows · times UTC
        </span>
        <DownloadButtons table={{ path: `storms/${encodeURIComponent(storm.id)}`, query: {} }} />
      </header>
      <div className="table-wrap">
        <DataTable
          columns={columns}
          rows={runs}
          rowKey={(run) => run.first.id}
          rowClassName={(run) => (run.first.avoidable ? 'avoidable' : 'needed')}
          className="timeline"
        />
      </div>
    </section>
  );
}
