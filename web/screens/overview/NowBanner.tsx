import { useQuery } from '@tanstack/react-query';
import { Link } from '../../components/Link.tsx';
import { formatCount } from '../../format.ts';
import { isActive, rankStorms, STORM_KIND_LABEL } from '../../prepare/storms.ts';
import type { Scope } from '../../queries/scope.ts';
import { stormsQuery } from '../../queries/storms.ts';
import { describeFailure } from '../../query-client.ts';
import { routePath } from '../../router.ts';
import { useUrl } from '../../use-url.ts';

/** One line that answers "is anything hammering a server right now?", with the worst case one click away. */
export function NowBanner({ scope }: { scope: Scope }) {
  const { link } = useUrl();
  const storms = useQuery(stormsQuery(scope));
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
  const now = Date.now();
  const active = rankStorms(storms.data.storms, now).filter((storm) => isActive(storm, now));
  const [worst] = active;
  if (worst === undefined) {
    return (
      <p className="now-banner calm" data-testid="now-banner">
        No retry storm active in the last 10 minutes.
      </p>
    );
  }
  const count = active.length === 1 ? '1 storm' : `${formatCount(active.length)} storms`;
  return (
    <p className="now-banner alert" data-testid="now-banner">
      <strong>{count} active now.</strong> Worst:{' '}
      <Link href={link(routePath({ name: 'storm', id: worst.id }))}>
        {STORM_KIND_LABEL[worst.kind].toLowerCase()} {worst.client} → {worst.server}
      </Link>
      , {formatCount(worst.avoidable)} avoidable of {formatCount(worst.attempts)} attempts.
    </p>
  );
}
