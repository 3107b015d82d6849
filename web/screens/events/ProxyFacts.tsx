import { Fragment } from 'react';
import { type JoinedRecord, proxyFacts } from '../../prepare/joined-records.ts';

/** What only the proxy saw (request id, upstream status, timing, user agent, ...), as a compact definition list. */
export function ProxyFacts({ record }: { record: Pick<JoinedRecord, 'source' | 'latencyMs' | 'http' | 'proxy'> }) {
  const facts = proxyFacts(record);
  if (facts.length === 0) return null;
  return (
    <>
      <h3>What only the proxy saw</h3>
      <dl className="facts compact" data-testid="proxy-facts">
        {facts.map((fact) => (
          <Fragment key={fact.key}>
            <dt>{fact.term}</dt>
            <dd>{fact.value}</dd>
          </Fragment>
        ))}
      </dl>
    </>
  );
}
