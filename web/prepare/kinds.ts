import { BUCKETS, type Bucket } from '../buckets.ts';
import { shareOf } from '../format.ts';
import type { CodeCount, ServerDetail } from '../queries/servers.ts';

export interface KindRow {
  bucket: Exclude<Bucket, 'ok'>;
  kind: string;
  requests: number;
  /** Of the failed requests in the range. */
  share: number | null;
}

/** Every (bucket, kind) that failed requests landed in, most frequent first; ties in bucket order, then by name. */
export function kindRows(counts: ServerDetail['counts']): KindRow[] {
  const failed = counts.total - counts.buckets.ok;
  const rows: KindRow[] = [];
  for (const bucket of BUCKETS) {
    if (bucket === 'ok') continue;
    for (const [kind, requests] of Object.entries(counts.kinds[bucket] ?? {})) {
      if (requests > 0) rows.push({ bucket, kind, requests, share: shareOf(requests, failed) });
    }
  }
  const order = (bucket: Bucket) => BUCKETS.indexOf(bucket);
  return rows.sort(
    (a, b) => b.requests - a.requests || order(a.bucket) - order(b.bucket) || a.kind.localeCompare(b.kind),
  );
}

/** ["JSON-RPC -32602", "HTTP 200"], ["HTTP 404"], or ["no code"] (a timeout, say): each part is kept on one line. */
export function codeParts(row: Pick<CodeCount, 'rpcCode' | 'httpStatus'>): string[] {
  const parts = [
    ...(row.rpcCode === null ? [] : [`JSON-RPC ${row.rpcCode}`]),
    ...(row.httpStatus === null ? [] : [`HTTP ${row.httpStatus}`]),
  ];
  return parts.length === 0 ? ['no code'] : parts;
}
