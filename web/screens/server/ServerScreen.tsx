import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Link } from '../../components/Link.tsx';
import { serverQuery, serverTableDownloads } from '../../queries/servers.ts';
import { useUrl } from '../../use-url.ts';
import { HiddenFailures } from '../actionability/HiddenFailures.tsx';
import { FiringAlerts } from '../alerts/FiringAlerts.tsx';
import { DenialsPanel } from '../denials/DenialsPanel.tsx';
import { ActionabilityPanel } from './ActionabilityPanel.tsx';
import { ClientsPanel } from './ClientsPanel.tsx';
import { ContextGapPanel } from './ContextGapPanel.tsx';
import { DiscoveryPanel } from './DiscoveryPanel.tsx';
import { EraPanel } from './EraPanel.tsx';
import { IdentityPanel } from './IdentityPanel.tsx';
import { KindsPanel } from './KindsPanel.tsx';
import { OverridesPanel } from './OverridesPanel.tsx';
import { SourcesPanel } from './SourcesPanel.tsx';
import { StormTable } from './StormTable.tsx';
import { TrafficPanel } from './TrafficPanel.tsx';

/**
 * One server: its traffic, why it fails, what hammers it, what it is asked to re-do, the protocol eras it answers, its
 * context gap and its contract.
 */
export function ServerScreen({ server }: { server: string }) {
  const { range, link } = useUrl();
  const detail = useQuery(serverQuery(server, range));
  const known = detail.data?.discovery != null;
  const serverDownloads = serverTableDownloads(server, range);
  return (
    <>
      <nav className="crumbs" aria-label="Breadcrumb">
        <Link href={link('/servers')}>Servers</Link> /
      </nav>
      <div className="screen-head">
        <h1 className="screen-title">{server}</h1>
        {detail.data ? (
          <span className={`pill ${known ? 'pill-ok' : 'pill-warn'}`}>
            {known ? 'discovery known' : 'no discovery document'}
          </span>
        ) : (
          <span className="pill">discovery …</span>
        )}
        <Link className="head-link" href={link('/events', { server })}>
          Events of this server →
        </Link>
      </div>
      {detail.isError && detail.data === undefined ? (
        <ErrorNote error={detail.error} what={`server ${server}`} onRetry={() => detail.refetch()} />
      ) : (
        <>
          <FiringAlerts server={server} />
          <TrafficPanel server={server} query={detail} />
          <KindsPanel server={server} query={detail} />
          <ActionabilityPanel server={server} />
          <HiddenFailures server={server} />
          <StormTable query={detail} download={serverDownloads.storms} />
          <DenialsPanel server={server} />
          <div className="grid">
            <IdentityPanel query={detail} download={serverDownloads.identities} />
            <div>
              <ClientsPanel server={server} query={detail} />
              <EraPanel server={server} query={detail} />
              <SourcesPanel query={detail} />
              <ContextGapPanel query={detail} />
            </div>
          </div>
          <div className="grid">
            <DiscoveryPanel server={server} query={detail} />
            <OverridesPanel server={server} query={detail} />
          </div>
        </>
      )}
    </>
  );
}
