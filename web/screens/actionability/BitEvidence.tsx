import { BIT_LABEL, BIT_MEANING, BITS } from '../../prepare/actionability.ts';

/**
 * One failure's six facts and, per fact given, the field that gave it; a fact nothing typed gave is a muted word, so
 * the line stays short and the fields that count stand out.
 */
export function BitEvidence({ reading }: { reading: { profile: string; evidence: Record<string, string> } }) {
  return (
    <div className="bit-evidence" data-testid="bit-evidence">
      <ul className="bits">
        {BITS.map((bit) => {
          const field = reading.evidence[bit];
          return (
            <li
              key={bit}
              className={field === undefined ? 'bit off' : 'bit on'}
              title={`${BIT_MEANING[bit]}${field === undefined ? ': not given' : ''}`}
            >
              <b>{BIT_LABEL[bit]}</b>
              {field === undefined ? null : <code>{field}</code>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
