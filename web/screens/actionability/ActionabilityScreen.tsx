import { useQuery } from '@tanstack/react-query';
import { Choice } from '../../components/Choice.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { formatCount } from '../../format.ts';
import { BIT_MEANING, BITS, VIEW_LABEL, VIEWS, viewOf } from '../../prepare/actionability.ts';
import { actionabilityQuery, type ServerActionability } from '../../queries/actionability.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';
import { BitShare, ProfileList } from './BitCells.tsx';
import { FailureList } from './FailureList.tsx';

/**
 * Seed 004's question per server: what do its failures let a client decide without reading prose? The servers
 * ranked by bits per failure, the six bits as columns (their share of the failures), and a click into one server's
 * failures with the field that earned each bit.
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
          title="Show this server's failures and what earned each bit"
        >
          {row.server}
        </button>
      ),
    },
    { label: 'Failures', num: true, className: 'phone-row', cell: (row) => formatCount(row[view].failures) },
    ...BITS.map(
      (bit): Column<ServerActionability> => ({
        label: bit,
        num: true,
        className: 'nowrap',
        title: BIT_MEANING[bit],
        cell: (row) => <BitShare counts={row[view]} bit={bit} />,
      }),
    ),
    {
      label: 'Bits / failure',
      num: true,
      className: 'phone-row',
      title: 'Bits earned per failure on average (0 to 6): the ranking',
      cell: (row) => row.bitsPerFailure[view].toFixed(1),
    },
    {
      label: 'Dominates',
      num: true,
      className: 'phone-row',
      title: 'Servers whose every bit this one matches or beats in share, and not the other way round',
      cell: (row) => (
        <span title={row.dominates[view].join(', ') || 'none'}>{formatCount(row.dominates[view].length)}</span>
      ),
    },
  ];
  return (
    <>
      <h1 className="screen-title">Actionability</h1>
      <p className="lede">
        What each server’s failures let a client decide from typed fields alone, without reading prose (seed 004: D
        failure detected, P policy, C cause, T target, E executable repair, R replay constraints).
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
              Fleet: {formatCount(data[view].failures)} failures ·{' '}
              {BITS.map((bit) => (
                <span key={bit} className="nowrap" title={BIT_MEANING[bit]}>
                  {bit} <BitShare counts={data[view]} bit={bit} />{' '}
                </span>
              ))}
            </p>
            <div className="table-wrap">
              <DataTable
                columns={columns}
                rows={data.servers}
                rowKey={(row) => row.server}
                rowClassName={(row) => (row.server === selected ? 'row-selected' : '')}
                rowTestId="actionability-row"
                className="actionability-table"
                stackOnPhone
              />
            </div>
            <h3>Profiles</h3>
            <ProfileList counts={data[view]} />
          </>
        )}
      </Panel>
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
