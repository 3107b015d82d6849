import type { z } from 'zod';
import type { CodeOverride, FailureBucket } from '../../shared/classify/types.ts';
import type { overridesSchema } from '../../shared/overrides.ts';

export const OVERRIDE_BUCKETS: readonly FailureBucket[] = ['refusal', 'transient', 'throttled', 'ambiguous'];

/** Which code an override matches: the member names of the API's body. */
export type CodeField = 'rpcCode' | 'httpStatus';

export const CODE_FIELDS: readonly CodeField[] = ['httpStatus', 'rpcCode'];

export const CODE_FIELD_LABEL: Readonly<Record<CodeField, string>> = {
  rpcCode: 'JSON-RPC code',
  httpStatus: 'HTTP status',
};

/** One row of the editor, as typed: the code stays text until it is sent. */
export interface OverrideDraft {
  field: CodeField;
  code: string;
  bucket: FailureBucket;
  kind: string;
}

export type OverridesBody = z.input<typeof overridesSchema>;

export function draftsOf(overrides: readonly CodeOverride[]): OverrideDraft[] {
  return overrides.map(({ match, bucket, kind }) =>
    'rpcCode' in match
      ? { field: 'rpcCode', code: String(match.rpcCode), bucket, kind }
      : { field: 'httpStatus', code: String(match.httpStatus), bucket, kind },
  );
}

export const EMPTY_DRAFT: OverrideDraft = { field: 'httpStatus', code: '', bucket: 'refusal', kind: '' };

/**
 * The PUT body, or the first row whose code is not a whole number (the one thing JSON cannot carry as typed). Every
 * other rule (status range, kind syntax) is the API's to check and report: one validator, one message.
 */
export function bodyOf(
  drafts: readonly OverrideDraft[],
): { ok: true; body: OverridesBody } | { ok: false; row: number; message: string } {
  const overrides: OverridesBody['overrides'] = [];
  for (const [index, draft] of drafts.entries()) {
    const text = draft.code.trim();
    const code = Number(text);
    if (text === '' || !Number.isInteger(code)) {
      return { ok: false, row: index, message: `the ${CODE_FIELD_LABEL[draft.field]} must be a whole number` };
    }
    const match = draft.field === 'rpcCode' ? { rpcCode: code } : { httpStatus: code };
    overrides.push({ ...match, bucket: draft.bucket, kind: draft.kind.trim() });
  }
  return { ok: true, body: { overrides } };
}

export type DraftInput = 'code' | 'bucket' | 'kind';

/**
 * The API names a bad member as `overrides.<index>.<member>` (`overrides.<index>` when the row as a whole is wrong):
 * the editor's row (from 0) and the input to mark, null for the whole row.
 */
export function fieldAt(field: string | null): { row: number; input: DraftInput | null } | null {
  const match = /^overrides\.(\d+)(?:\.(\w+))?$/.exec(field ?? '');
  if (match === null) return null;
  const member = match[2];
  const input =
    member === 'rpcCode' || member === 'httpStatus' ? 'code' : member === 'bucket' || member === 'kind' ? member : null;
  return { row: Number(match[1]), input };
}

/** "row 1, kind", or "row 3" when the API refused the row as a whole. */
export function faultPlace(fault: { row: number; input: DraftInput | null }): string {
  return `row ${fault.row + 1}${fault.input === null ? '' : `, ${fault.input}`}`;
}
