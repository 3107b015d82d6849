import type { ReactNode } from 'react';
import { ErrorNote } from './ErrorNote.tsx';
import { useScrollToAnchor } from './use-anchor.ts';

/** The parts of a query result a panel reads. */
export interface PanelQuery<T> {
  data: T | undefined;
  error: unknown;
  isError: boolean;
  refetch: () => unknown;
}

interface PanelProps<T> {
  title: ReactNode;
  /** For the error sentence: "Could not load the storms". */
  what: string;
  query: PanelQuery<T>;
  /** Reserved while loading, so that nothing below jumps when the data arrives. */
  minHeight: number;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  actions?: ReactNode;
  id?: string;
  testId?: string;
  className?: string;
  children: (data: T) => ReactNode;
}

/** A titled section with one loading, empty and error state for every panel of the dashboard. */
export function Panel<T>(props: PanelProps<T>) {
  const { title, what, query, minHeight, isEmpty, empty, actions, id, testId, className, children } = props;
  const data = query.data;
  useScrollToAnchor(id, data !== undefined);
  let body: ReactNode;
  if (data === undefined) {
    body = query.isError ? (
      <ErrorNote error={query.error} what={what} onRetry={() => query.refetch()} />
    ) : (
      <div className="skeleton" style={{ height: minHeight }} />
    );
  } else if (isEmpty?.(data)) {
    body = <div className="empty">{empty}</div>;
  } else {
    body = children(data);
  }
  return (
    <section className={`panel ${className ?? ''}`} id={id} data-testid={testId}>
      <header className="panel-head">
        <h2>{title}</h2>
        {actions === undefined ? null : <div className="panel-actions">{actions}</div>}
      </header>
      <div className="panel-body" style={{ minHeight }} aria-busy={data === undefined && !query.isError}>
        {data !== undefined && query.isError ? (
          <p className="stale" role="status">
            Showing the last data that loaded; refreshing failed.
          </p>
        ) : null}
        {body}
      </div>
    </section>
  );
}
