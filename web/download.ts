import { authHeaders } from './token.ts';

/** The forms a table downloads in (api/export.ts). */
export type DownloadFormat = 'csv' | 'ndjson';

/** What a table downloads: its API path under /api/v1 and the query its JSON was read with. */
export interface TableDownload {
  path: string;
  query: Readonly<Record<string, string | undefined>>;
}

/** The download's address on this server. */
export function downloadUrl({ path, query }: TableDownload, format: DownloadFormat): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  params.set('format', format);
  return `/api/v1/${path}?${params}`;
}

/**
 * Fetches a download and hands it to the browser as a file. Fetched rather than linked, because a link cannot send
 * the token the API may ask for; the browser holds the file in memory meanwhile, the server streams it.
 */
export async function saveDownload(table: TableDownload, format: DownloadFormat): Promise<void> {
  const response = await fetch(downloadUrl(table, format), { headers: authHeaders() });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `the download failed (HTTP ${response.status})`);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const href = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = href;
  link.download = name ?? `lens-${table.path.replaceAll('/', '-')}.${format}`;
  link.click();
  // After the click has handed the file over: revoking at once can cancel the save in some browsers.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
