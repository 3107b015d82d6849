import { useQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { counted, formatCount } from '../../format.ts';
import { STORM_KIND_LABEL } from '../../prepare/storms.ts';
import type { Scope } from '../../queries/scope.ts';
import { rankedStormsQuery } from '../../queries/storms.ts';
import { describeFailure } from '../../query-client.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** One line that answers "is anything hammering a server right now?", with the worst case one click away. */
export function NowBanner({ scope }: { scope: Scope }) {
  const { link } = useUrl();
  const storms = useQuery(rankedStormsQuery(scope));
  if (storms.data === undefined) {
    if (!storms.isError) return <p className="now-banner pending">Looking for active storms…</p>;
    const failure = describeFailure(storms.error);
    return (
      <p className="now-banner alert" role="alert">
        Could not check for active storms: {failure.message}.{' '}
        {failure.retryable ? 'Retrying can help.' : 'Retrying will not help.'}
      </p>
    );
  }
  // Ranked by the API, active ones first, and counted with its clock: the first storm is the worst active one.
  const { active } = storms.data;
  const worst = active > 0 ? storms.data.storms[0] : undefined;
  if (worst === undefined) {
    return (
      <p className="now-banner calm" data-testid="now-banner">
        No retry storm active in the last 10 minutes.
      </p>
    );
  }
  return (
    <p className="now-banner alert" data-testid="now-banner">
      <strong>{counted(active, 'storm')} active now.</strong> Worst:{' '}
      <Link href={link(routePath({ name: 'storm', id: worst.id }))}>
        {STORM_KIND_LABEL[worst.kind].toLowerCase()} {worst.client} → {worst.server}
      </Link>
      , {formatCount(worst.avoidable)} avoidable of {counted(worst.attempts, 'attempt')}.
    </p>
  );
}
