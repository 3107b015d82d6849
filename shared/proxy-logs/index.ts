import { isBlank, type ProxyLineOptions, type ProxyLineResult, reject } from './common.ts';
import { type EnvoyJsonOptions, envoyJsonLineToEvent, envoyLineToEvent } from './envoy.ts';
import { nginxCombinedLineToEvent } from './nginx-combined.ts';
import { type NginxJsonOptions, nginxJsonLineToEvent } from './nginx-json.ts';

/**
 * Reverse-proxy access logs as native events (DOMAIN.md section 9): pure functions from one line to the plain
 * object `validateEvent` takes. The caller validates it, exactly as it would a native line:
 *
 *     const read = proxyLineToEvent('nginx-json', line, { server: 'release-desk' });
 *     const parsed = read.ok ? validateEvent(read.value) : read;
 *
 * A line is refused only when it cannot be an access-log line of the format at all (`empty_line`,
 * `not_the_format`) or names no time an event could have (`no_timestamp`). Anything else a line gets wrong (a
 * scanner's request line, an odd status, a 10 KB user agent) costs that member, with a warning, never the line.
 *
 * `proxy` (request id, traceparent, upstream status, user agent, remote address, ...) is a member `validateEvent`
 * does not read: keep it from `value` where the proxy's facts are wanted (joining to the client's record by
 * `X-Request-Id` or `traceparent`).
 */
export type ProxyFormat = 'nginx-json' | 'nginx-combined' | 'envoy' | 'envoy-json';

export interface ProxyFormatOptions {
  'nginx-json': NginxJsonOptions;
  'nginx-combined': ProxyLineOptions;
  envoy: ProxyLineOptions;
  'envoy-json': EnvoyJsonOptions;
}

export function proxyLineToEvent<F extends ProxyFormat>(
  format: F,
  line: string,
  options: ProxyFormatOptions[F] = {},
): ProxyLineResult {
  if (isBlank(line)) return reject('empty_line', 'the line is empty');
  switch (format) {
    case 'nginx-json':
      return nginxJsonLineToEvent(line, options as NginxJsonOptions);
    case 'nginx-combined':
      return nginxCombinedLineToEvent(line, options);
    case 'envoy':
      return envoyLineToEvent(line, options);
    case 'envoy-json':
      return envoyJsonLineToEvent(line, options as EnvoyJsonOptions);
    default:
      return reject('not_the_format', `no reader for the format ${JSON.stringify(format)}`);
  }
}

export type {
  ProxyEventValue,
  ProxyFacts,
  ProxyHttp,
  ProxyLineError,
  ProxyLineErrorCode,
  ProxyLineOptions,
  ProxyLineResult,
  ProxyProtocol,
  ServerOf,
} from './common.ts';
export { detectFormat, type LogFormat } from './detect.ts';
export type { EnvoyJsonOptions, EnvoyOperator } from './envoy.ts';
export { ENVOY_JSON_DEFAULT_KEYS, envoyJsonLineToEvent, envoyLineToEvent } from './envoy.ts';
export { nginxCombinedLineToEvent } from './nginx-combined.ts';
export type { NginxJsonField, NginxJsonOptions } from './nginx-json.ts';
export { NGINX_JSON_FIELDS, nginxJsonLineToEvent } from './nginx-json.ts';
