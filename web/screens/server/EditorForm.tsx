import type { ReactNode } from 'react';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { formatCount } from '../../format.ts';
import type { ReclassifyMutation } from './use-reclassify.ts';

interface EditorFormProps<T> {
  save: ReclassifyMutation<T>;
  /** For the error sentence: "Could not save the overrides". */
  what: string;
  onSubmit: () => void;
  onDone: () => void;
  /** Where the refused input is, shown under the error. */
  fault?: ReactNode;
  children: ReactNode;
}

/**
 * A form that changes the server's contract: its fields, then why saving failed or how many stored events the save
 * reclassified, then Save and Close.
 */
export function EditorForm<T>({ save, what, onSubmit, onDone, fault, children }: EditorFormProps<T>) {
  return (
    <form
      className="editor"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
      {save.isError ? (
        <div>
          <ErrorNote error={save.error} what={what} action="save" />
          {fault}
        </div>
      ) : null}
      {save.isSuccess ? (
        <p role="status" className="saved" data-testid="reclassified">
          Saved. {formatCount(save.data.reclassified)} stored event{save.data.reclassified === 1 ? '' : 's'}{' '}
          reclassified.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onDone}>
          {save.isSuccess ? 'Close' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}
