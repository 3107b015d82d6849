import { HOST_FORMATS } from './host-logs/detect.ts';

/**
 * Every log format ingest reads (DOMAIN.md section 9), in the order a person picks from: the native NDJSON,
 * reverse-proxy access logs (read a line at a time, shared/proxy-logs) and hosts' and bridges' own logs (read whole,
 * shared/host-logs).
 */
export const LOG_FORMATS = ['native', 'nginx-json', 'nginx-combined', 'envoy', 'envoy-json', ...HOST_FORMATS] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
