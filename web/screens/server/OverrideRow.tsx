import { BUCKET_LABEL } from '../../buckets.ts';
import { Choice } from '../../components/Choice.tsx';
import {
  CODE_FIELD_LABEL,
  CODE_FIELDS,
  type DraftInput,
  OVERRIDE_BUCKETS,
  type OverrideDraft,
} from '../../prepare/overrides.ts';

interface OverrideRowProps {
  draft: OverrideDraft;
  /** From 0; shown from 1, as "Row 1: code". */
  row: number;
  /** The input the API refused in this row; 'row' when it refused the row as a whole. */
  refused: DraftInput | 'row' | null;
  onChange: (patch: Partial<OverrideDraft>) => void;
  onRemove: () => void;
}

/** One override as editable inputs; on a phone the cells stack with their labels. */
export function OverrideRow({ draft, row, refused, onChange, onRemove }: OverrideRowProps) {
  const label = (what: string) => `Row ${row + 1}: ${what}`;
  const invalid = (input: DraftInput) => refused === 'row' || refused === input;
  return (
    <tr className={refused === null ? undefined : 'row-invalid'}>
      <td data-label="Match">
        <Choice
          className="match"
          aria-label={label('match')}
          value={draft.field}
          options={CODE_FIELDS}
          label={(field) => CODE_FIELD_LABEL[field]}
          onChange={(field) => onChange({ field })}
        />
      </td>
      <td data-label="Code">
        <input
          aria-label={label('code')}
          aria-invalid={invalid('code')}
          inputMode="numeric"
          size={7}
          value={draft.code}
          placeholder={draft.field === 'rpcCode' ? '-32003' : '429'}
          onChange={(event) => onChange({ code: event.target.value })}
        />
      </td>
      <td data-label="Bucket">
        <Choice
          aria-label={label('bucket')}
          aria-invalid={invalid('bucket')}
          value={draft.bucket}
          options={OVERRIDE_BUCKETS}
          label={(bucket) => BUCKET_LABEL[bucket]}
          onChange={(bucket) => onChange({ bucket })}
        />
      </td>
      <td data-label="Kind">
        <input
          aria-label={label('kind')}
          aria-invalid={invalid('kind')}
          value={draft.kind}
          spellCheck={false}
          placeholder="rate_limited"
          onChange={(event) => onChange({ kind: event.target.value })}
        />
      </td>
      <td>
        <button type="button" className="quiet" aria-label={`Remove row ${row + 1}`} onClick={onRemove}>
          Remove
        </button>
      </td>
    </tr>
  );
}
