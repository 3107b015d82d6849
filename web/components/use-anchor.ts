import { useIsFetching } from '@tanstack/react-query';
import { useEffect } from 'react';
import { currentMove } from '../router.ts';

/** The last move whose address was scrolled to its anchor: once per move, so that a refresh never yanks the page. */
let anchoredMove = -1;

/**
 * Scrolls to the panel `id` when the address names it (`/servers/x#context-gap`), once it has rendered and nothing
 * above it is still loading: the browser tries when the page opens, before any panel exists, and a link within the
 * app scrolls to the top of the new screen. Below a sticky header, it stops under it.
 */
export function useScrollToAnchor(id: string | undefined, rendered: boolean): void {
  const fetching = useIsFetching();
  useEffect(() => {
    if (id === undefined || !rendered || fetching > 0) return;
    if (decodeURIComponent(window.location.hash.slice(1)) !== id || anchoredMove === currentMove()) return;
    const panel = document.getElementById(id);
    if (panel === null) return;
    anchoredMove = currentMove();
    const header = document.querySelector('.app-header');
    const covered = header !== null && getComputedStyle(header).position === 'sticky';
    const offset = covered ? header.getBoundingClientRect().height + 8 : 0;
    window.scrollTo({ top: panel.getBoundingClientRect().top + window.scrollY - offset });
  }, [id, rendered, fetching]);
}
