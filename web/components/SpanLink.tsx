import type { ReactNode } from 'react';
import { formatWindow } from '../format.ts';
import { type Span, spanWindow } from '../prepare/span.ts';
import { rangeParams } from '../time-range.ts';
import { useUrl } from '../use-url.ts';
import { Link } from './Link.tsx';

/** A link to the overview over the whole minutes that hold `span`; its text says the window unless given. */
export function SpanLink({ span, children, testId }: { span: Span; children?: ReactNode; testId?: string }) {
  const { link } = useUrl();
  const window = spanWindow(span);
  return (
    <Link href={link('/', rangeParams(window))} data-testid={testId}>
      {children ?? `Show ${formatWindow(window.from, window.to)} →`}
    </Link>
  );
}
