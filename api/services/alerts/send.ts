import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { bareHost } from './targets.ts';

export interface SendAnswer {
  status: number;
  retryAfter: string | null;
  /** The start of a non-2xx answer's body, at most `EXCERPT_BYTES` bytes, for the delivery log. */
  excerpt: string | null;
}

const EXCERPT_BYTES = 300;

/**
 * POSTs `body` to `url`, connecting only to `addresses`: the ones the address policy has just judged. The socket's
 * own lookup answers from them, so a name that resolves elsewhere a second time (DNS rebinding) is never asked
 * again; TLS still checks the certificate against the URL's host name. No redirect is followed, no connection
 * kept, and the whole exchange (the excerpt included) ends after `timeoutMs`.
 */
export function send(
  url: URL,
  addresses: readonly LookupAddress[],
  request: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<SendAnswer> {
  return new Promise((resolve, reject) => {
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (answer: SendAnswer | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const answered = () => {
      const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
      const status = response?.statusCode ?? 0;
      const retryAfter = response?.headers['retry-after'];
      finish({ status, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, excerpt: text || null });
      response?.destroy();
    };
    const credentials =
      url.username === '' ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: bareHost(url.hostname),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      auth: credentials,
      agent: false,
      lookup: pinnedLookup(addresses),
    });
    timer = setTimeout(() => {
      // A timeout while the excerpt is read still logs what had come; before any answer, there is none.
      if (response !== undefined) return answered();
      const error = new Error('no answer within the timeout');
      error.name = 'TimeoutError';
      finish(error);
      req.destroy(error);
    }, request.timeoutMs);
    // Once an answer came, a failure while its excerpt is read only cuts the excerpt short.
    req.on('error', (error) => (response === undefined ? finish(error) : answered()));
    req.on('response', (res) => {
      response = res;
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return answered();
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= EXCERPT_BYTES) answered();
      });
      res.on('end', answered);
      res.on('error', answered);
      res.on('close', answered);
    });
    req.end(request.body);
  });
}

/** A lookup that answers with the judged addresses only (of the family asked for, when one is). */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : null;
    const wanted = addresses.filter((a) => family === null || a.family === family);
    const first = wanted[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error('no judged address of the family asked for');
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) {
      callback(
        null,
        wanted.map((a) => ({ address: a.address, family: a.family })),
      );
    } else {
      callback(null, first.address, first.family);
    }
  };
}
