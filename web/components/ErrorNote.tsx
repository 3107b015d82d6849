import { describeFailure } from '../query-client.ts';

interface ErrorNoteProps {
  error: unknown;
  /** What failed to load, for the sentence: "Could not load the storms". */
  what: string;
  /** What was being done: "load" (the default) or "save". */
  action?: string;
  onRetry?: () => void;
}

/** An API error in words: what failed, why, and whether trying again can help (`ApiFailure.retryable`). */
export function ErrorNote({ error, what, action = 'load', onRetry }: ErrorNoteProps) {
  const failure = describeFailure(error);
  return (
    <div role="alert" className="error-note">
      <p>
        <strong>
          Could not {action} {what}:
        </strong>{' '}
        {failure.message}.
      </p>
      <p className="muted">
        {failure.retryable ? 'This may pass: retrying can help.' : 'Retrying will not help.'}
        {failure.fix === null ? '' : ` ${failure.fix}`}
      </p>
      {failure.retryable && onRetry ? (
        <button type="button" onClick={onRetry}>
          Retry now
        </button>
      ) : null}
    </div>
  );
}
