import { type ReactNode, useEffect, useRef, useState } from 'react';

/** Which sides of a wide table are scrolled out of sight. */
type Hidden = 'none' | 'right' | 'left' | 'both';

function hiddenSides(wrap: HTMLElement): Hidden {
  // A pixel of rounding is no column.
  const left = wrap.scrollLeft > 1;
  const right = wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1;
  if (left && right) return 'both';
  return left ? 'left' : right ? 'right' : 'none';
}

/**
 * A table that may be wider than the screen (a phone): it scrolls sideways inside its panel, and says so. A shadow
 * marks each edge with columns beyond it and a line below names it, so that a number cut at the edge ("12,00" of
 * 12,000) never reads as the whole number. Tables that stack into cards on a phone rarely need it; a sortable or
 * two-way table (the servers, the context matrix) does.
 */
export function TableScroll({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [hidden, setHidden] = useState<Hidden>('none');
  useEffect(() => {
    const wrap = ref.current;
    if (wrap === null) return;
    const update = () => setHidden(hiddenSides(wrap));
    update();
    const observer = new ResizeObserver(update);
    observer.observe(wrap);
    // The table itself grows as rows arrive or a sort reorders them; the wrap alone would not tell.
    for (const child of wrap.children) observer.observe(child);
    wrap.addEventListener('scroll', update, { passive: true });
    return () => {
      observer.disconnect();
      wrap.removeEventListener('scroll', update);
    };
  }, []);
  return (
    <>
      <div className="table-wrap" data-hidden={hidden} ref={ref}>
        {children}
      </div>
      {hidden === 'right' || hidden === 'both' ? (
        <p className="scroll-hint" data-testid="scroll-hint">
          Scroll sideways for more columns →
        </p>
      ) : null}
    </>
  );
}
