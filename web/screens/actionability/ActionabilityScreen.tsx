import { useQuery } from '@tanstack/react-query';
import { Choice } from '../../components/Choice.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { TableScroll } from '../../components/TableScroll.tsx';
import { counted, formatCount } from '../../format.ts';
import { BIT_LABEL, BIT_MEANING, BITS, VIEW_LABEL, VIEWS, viewOf } from '../../prepare/actionability.ts';
import { hiddenLine } from '../../prepare/hidden.ts';
import { actionabilityQuery, type ServerActionability } from '../../queries/actionability.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { BitShare, ProfileList } from './BitCells.tsx';
import { FailureList } from './FailureList.tsx';
import { HiddenFailures } from './HiddenFailures.tsx';

/**
 * Per server: what do its failures let a client decide without reading prose (DOMAIN.md section 8)? The servers
 * ranked by facts per failure, the six facts as columns (their share of the failures), and a click into one server's
 * failures with the field that gave each fact.
 */
export function ActionabilityScreen() {
  const { range, params, setParams, link } = useUrl();
  const view = viewOf(params.get('view'));
  const selected = params.get('server') ?? undefined;
  const query = useQuery(actionabilityQuery({ range }));
  const open = (server: string) => setParams({ server: server === selected ? null : server });
  const columns: Column<ServerActionability>[] = [
    {
      label: 'Server',
      rowHeader: true,
      cell: (row) => (
        <button
          type="button"
          className={row.server === selected ? 'linkish selected' : 'linkish'}
          aria-pressed={row.server === selected}
          onClick={() => open(row.server)}
          title="Show this server's failures and the field that gave each fact"
        >
          {row.server}
        </button>
      ),
    },
    { label: 'Failures', num: true, className: 'phone-row', cell: (row) => formatCount(row[view].failures) },
    {
      label: 'Hidden',
      num: true,
      className: 'phone-row',
      title:
        'Of them, answers that looked successful but whose text said the call failed (and, of those, rate limited)',
      cell: (row) => (
        <span className={row.hidden.failures === 0 ? 'muted' : 'warn-text'} title={hiddenLine(row.hidden)}>
          {formatCount(row.hidden.failures)}
        </span>
      ),
    },
    ...BITS.map(
      (bit): Column<ServerActionability> => ({
        label: BIT_LABEL[bit],
        num: true,
        className: 'nowrap',
        title: BIT_MEANING[bit],
        cell: (row) => <BitShare counts={row[view]} bit={bit} />,
      }),
    ),
    {
      label: 'Facts per failure',
      num: true,
      className: 'phone-row',
      title: 'How many of the six facts a failure gives on average (0 to 6): the ranking',
      cell: (row) => row.bitsPerFailure[view].toFixed(1),
    },
    {
      label: 'Ahead of',
      num: true,
      className: 'phone-row',
      title: 'Servers this one matches or beats on every fact, and beats on at least one',
      cell: (row) => (
        <span title={row.dominates[view].join(', ') || 'none'}>{counted(row.dominates[view].length, 'server')}</span>
      ),
    },
  ];
  return (
    <>
      <h1 className="screen-title">Actionability</h1>
      <p className="lede">
        What each server’s failures tell a client from typed fields alone, without reading prose: that it failed, what
        to do, the cause, what to fix, a ready repair, and whether and when to send the request again; and, with the
        text read, what a client only learns from prose. Hidden failures are answers that look successful but whose text
        says the call failed: they count as failures here that typed fields do not detect.
      </p>
      <Panel
        title="Servers, by what their errors let a client decide"
        what="the actionability of failures"
        query={query}
        minHeight={280}
        isEmpty={(data) => data.servers.length === 0}
        empty="No failed request in this range."
        testId="actionability-table"
        actions={
          <label className="inline-label">
            View{' '}
            <Choice
              value={view}
              options={VIEWS}
              label={(option) => VIEW_LABEL[option]}
              onChange={(next) => setParams({ view: next === 'control' ? null : next })}
              data-testid="actionability-view"
            />
          </label>
        }
      >
        {(data) => (
          <>
            <p className="fleet-line" data-testid="actionability-fleet">
              All servers, {counted(data[view].failures, 'failure')} ({hiddenLine(data.hidden)}):
              {BITS.map((bit, index) => (
                <span key={bit}>
                  {index === 0 ? ' ' : ', '}
                  <span className="nowrap" title={BIT_MEANING[bit]}>
                    {BIT_LABEL[bit].toLowerCase()} <BitShare counts={data[view]} bit={bit} />
                  </span>
                </span>
              ))}
            </p>
            <TableScroll>
              <DataTable
                columns={columns}
                rows={data.servers}
                rowKey={(row) => row.server}
                rowClassName={(row) => (row.server === selected ? 'row-selected' : '')}
                rowTestId="actionability-row"
                className="actionability-table"
                stackOnPhone
              />
            </TableScroll>
            <h3>The facts failures gave together</h3>
            <ProfileList counts={data[view]} />
          </>
        )}
      </Panel>
      <HiddenFailures {...(selected !== undefined && { server: selected })} />
      {selected === undefined ? null : (
        <Panel
          title={
            <>
              Failures of <Link href={link(routePath({ name: 'server', server: selected }))}>{selected}</Link>
            </>
          }
          what="the server's failures"
          query={query}
          minHeight={200}
          testId="actionability-failures"
        >
          {() => <FailureList server={selected} view={view} />}
        </Panel>
      )}
    </>
  );
}
