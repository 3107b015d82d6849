import { Json } from '../../components/Json.tsx';
import type { PanelQuery } from '../../components/Panel.tsx';
import type { ServerDetail } from '../../queries/servers.ts';
import { ContractPanel } from './ContractPanel.tsx';
import { DiscoveryEditor } from './DiscoveryEditor.tsx';

/** The server's contract as the product holds it: what decides whether a 404 is a refusal. */
export function DiscoveryPanel({ server, query }: { server: string; query: PanelQuery<ServerDetail> }) {
  return (
    <ContractPanel
      title="Discovery document"
      what="the discovery document"
      query={query}
      minHeight={160}
      testId="discovery-panel"
    >
      {(data, edit) => (
        <div data-testid="discovery">
          {edit.open ? (
            <DiscoveryEditor server={server} source={data.discoverySource} onDone={edit.close} />
          ) : (
            <DiscoveryView discovery={data.discovery} source={data.discoverySource} />
          )}
        </div>
      )}
    </ContractPanel>
  );
}

function DiscoveryView({ discovery, source }: Pick<ServerDetail, 'discovery'> & { source: unknown }) {
  if (discovery === null) {
    return (
      <p className="empty">
        No discovery document. A 404 from this server cannot be judged against a contract, so it lands in
        <em> ambiguous</em>. Add one with Edit.
      </p>
    );
  }
  const endpoints = discovery.endpoints.map((e) => (e.method ? `${e.method} ${e.path}` : e.path));
  return (
    <>
      <dl className="facts">
        <dt>Format</dt>
        <dd>{discovery.format}</dd>
        <dt>Declared endpoints</dt>
        <dd>{endpoints.length > 0 ? endpoints.join(', ') : 'none'}</dd>
        <dt>Declared methods</dt>
        <dd>{discovery.methods.length > 0 ? discovery.methods.join(', ') : 'not listed'}</dd>
      </dl>
      <Json value={source} label="As sent" />
    </>
  );
}
