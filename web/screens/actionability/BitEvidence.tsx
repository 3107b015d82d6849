import { BIT_LABEL, BIT_MEANING, BITS } from '../../prepare/actionability.ts';
import { textRuleLabel } from '../../prepare/hidden.ts';

interface Reading {
  profile: string;
  evidence: Record<string, string>;
  /** With the text read: per fact the text gave, the rule that read it and the words it read. */
  text?: Record<string, { rule: string; span: string }>;
}

/**
 * One failure's six facts and, per fact given, the field that gave it (with the text read, the words that gave it);
 * a fact nothing gave is a muted word, so the line stays short and the fields that count stand out.
 */
export function BitEvidence({ reading }: { reading: Reading }) {
  return (
    <div className="bit-evidence" data-testid="bit-evidence">
      <ul className="bits">
        {BITS.map((bit) => {
          const field = reading.evidence[bit];
          const words = reading.text?.[bit];
          return (
            <li
              key={bit}
              className={field === undefined ? 'bit off' : 'bit on'}
              title={`${BIT_MEANING[bit]}${field === undefined ? ': not given' : ''}${words === undefined ? '' : ` (read: ${textRuleLabel(words.rule)} in ${field})`}`}
            >
              <b>{BIT_LABEL[bit]}</b>
              {field === undefined ? null : words === undefined ? <code>{field}</code> : <q>{words.span}</q>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
