import { useUrl } from '../use-url.ts';

/** A search box whose text lives in the URL's `q`, so a filtered list can be shared and survives a reload. */
export function UrlSearch({ label }: { label: string }) {
  const { params, setParams } = useUrl();
  return (
    <input
      type="search"
      className="search"
      placeholder={label}
      aria-label={label}
      value={params.get('q') ?? ''}
      onChange={(event) => setParams({ q: event.target.value }, { replace: true })}
    />
  );
}
