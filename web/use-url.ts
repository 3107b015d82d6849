import { useCallback, useMemo } from 'react';
import { navigate, useLocation } from './router.ts';
import { applyPatch, hrefOf, linkTo, type Patch, readGlobal } from './url-state.ts';

/** The current screen, its URL members and the two ways to change them: patch this screen, or link to another. */
export function useUrl() {
  const location = useLocation();
  const global = useMemo(() => readGlobal(location.params), [location.params]);
  const { pathname, params } = location;
  const setParams = useCallback(
    (patch: Patch, options: { replace?: boolean } = {}) =>
      navigate(hrefOf(pathname, applyPatch(params, patch)), options),
    [pathname, params],
  );
  const link = useCallback((path: string, extra: Patch = {}) => linkTo(path, params, extra), [params]);
  return { ...location, ...global, setParams, link };
}
