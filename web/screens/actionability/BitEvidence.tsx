import { BIT_MEANING, BITS } from '../../prepare/actionability.ts';

/** One failure's profile and, per bit, the field that earned it, or that nothing typed did. */
export function BitEvidence({ reading }: { reading: { profile: string; evidence: Record<string, string> } }) {
  return (
    <div className="bit-evidence" data-testid="bit-evidence">
      <code className="profile" title="D P C T E R">
        {reading.profile}
      </code>
      <dl className="bits">
        {BITS.map((bit) => {
          const field = reading.evidence[bit];
          return (
            <div key={bit} className={field === undefined ? 'bit off' : 'bit on'} title={BIT_MEANING[bit]}>
              <dt>{bit}</dt>
              <dd>{field === undefined ? '–' : <code>{field}</code>}</dd>
            </div>
          );
        })}
      </dl>
    </div>
  );
}
