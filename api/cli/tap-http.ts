import type { Sink } from './tap-sink.ts';

export interface HttpTap {
  port: number;
  upstream: URL;
  server: string;
  client?: string;
  boundMs: number;
  sink: Sink;
}

export async function runHttpTap(_tap: HttpTap): Promise<{ code: number; notes: string[] }> {
  return { code: 0, notes: [] };
}
