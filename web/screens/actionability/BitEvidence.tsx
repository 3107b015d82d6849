import { BIT_MEANING, BITS } from '../../prepare/actionability.ts';

/**
 * One failure's profile and, per bit, the field that earned it; a bit nothing typed earned is a muted letter, so the
 * line stays short and the fields that count stand out.
 */
export function BitEvidence({ reading }: { reading: { profile: string; evidence: Record<string, string> } }) {
  return (
    <div className="bit-evidence" data-testid="bit-evidence">
      <code className="profile" title="D P C T E R">
        {reading.profile}
      </code>
      <ul className="bits">
        {BITS.map((bit) => {
          const field = reading.evidence[bit];
          return (
            <li
              key={bit}
              className={field === undefined ? 'bit off' : 'bit on'}
              title={`${BIT_MEANING[bit]}${field === undefined ? ': not earned' : ''}`}
            >
              <b>{bit}</b>
              {field === undefined ? null : <code>{field}</code>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
