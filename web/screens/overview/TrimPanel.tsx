import { useQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { Panel } from '../../components/Panel.tsx';
import { ShareBar } from '../../components/ShareBar.tsx';
import { formatCount, formatShare } from '../../format.ts';
import { worstTrim } from '../../prepare/context-gap.ts';
import { contextGapQuery } from '../../queries/context-gap.ts';
import type { Scope } from '../../queries/scope.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** Servers whose sampling requests get less context than they ask for, over the responses that say. */
export function TrimPanel({ scope }: { scope: Scope }) {
  const { link } = useUrl();
  const gaps = useQuery(contextGapQuery(scope));
  return (
    <Panel
      title="Worst trim rate"
      what="the context gap"
      query={gaps}
      minHeight={180}
      isEmpty={(data) => data.servers.length === 0}
      empty="No sampling requests in this range."
      testId="trim-panel"
    >
      {(data) => {
        const { worst, unreported } = worstTrim(data.servers, 5);
        return (
          <>
            <ol className="rank">
              {worst.map((row) => (
                <li key={row.server}>
                  <Link href={`${link(routePath({ name: 'server', server: row.server }))}#context-gap`}>
                    {row.server}
                  </Link>
                  <ShareBar value={row.trimRate ?? 0} max={1} tone="trim" />
                  <span className="num">{formatShare(row.trimRate)}</span>
                  <span className="num muted">
                    {formatCount(row.trimmed)} of {formatCount(row.reported)}
                  </span>
                </li>
              ))}
            </ol>
            {unreported.length > 0 ? (
              <p className="muted panel-foot">
                No rate for {unreported.join(', ')}: their clients never say what context they applied.
              </p>
            ) : null}
          </>
        );
      }}
    </Panel>
  );
}
