import { randomUUID } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { HttpRecorder } from '../../shared/tap/http-recorder.ts';
import type { Sink } from './tap-sink.ts';

export interface HttpTap {
  port: number;
  upstream: URL;
  server: string;
  client?: string;
  boundMs: number;
  sink: Sink;
}

/** Headers of one connection only (RFC 9110 section 7.6.1): never passed on by a proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * A reverse proxy for Streamable HTTP on 127.0.0.1: every request goes to the upstream's origin with its own path,
 * method, headers (Host rewritten) and body, every answer back as it streams (JSON, SSE, the GET stream, DELETE),
 * and the recorder reads a copy of both. The upstream not answering gets a 502 of the proxy's own, recorded as such.
 * Runs until SIGINT or SIGTERM.
 */
export async function runHttpTap(tap: HttpTap): Promise<{ code: number; notes: string[] }> {
  const notes: string[] = [];
  const recorder = new HttpRecorder({
    server: tap.server,
    client: tap.client,
    boundMs: tap.boundMs,
    idPrefix: `tap-${randomUUID()}`,
    emit: (event) => tap.sink.write(event),
  });
  const server = createServer((req, res) => {
    try {
      proxy(req, res, tap, recorder);
    } catch (error) {
      notes.push(`an exchange could not be passed on: ${error instanceof Error ? error.message : error}`);
      if (!res.headersSent) res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(tap.port, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  process.stderr.write(
    `lens tap: listening on http://127.0.0.1:${port}${tap.upstream.pathname}, passing to ${tap.upstream.href}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.close();
  server.closeAllConnections();
  recorder.close();
  return { code: 0, notes };
}

function proxy(req: IncomingMessage, res: ServerResponse, tap: HttpTap, recorder: HttpRecorder): void {
  const target = new URL(req.url ?? '/', tap.upstream);
  const exchange = recorder.begin({ method: req.method ?? 'GET', path: target.pathname, headers: req.headers });
  const watch = (read: () => void) => {
    try {
      read();
    } catch {
      // The recorder's fault never reaches the traffic.
    }
  };
  const bound = setTimeout(() => watch(() => exchange.expire()), tap.boundMs);
  bound.unref();
  const headers: IncomingHttpHeaders = { ...passedOn(req.headers), host: target.host };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(target, { method: req.method, headers });

  // Piped first: each chunk is passed on before the recorder reads its copy.
  req.pipe(upstream);
  decoded(
    req,
    req.headers,
    (chunk) => watch(() => exchange.requestBytes(chunk)),
    () => watch(() => exchange.requestEnded()),
  );

  upstream.on('response', (answer) => {
    const raw: string[] = [];
    for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
      const name = answer.rawHeaders[i] as string;
      if (!HOP_BY_HOP.has(name.toLowerCase())) raw.push(name, answer.rawHeaders[i + 1] as string);
    }
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, raw);
    // SSE must reach the client as it comes, not when a buffer fills.
    res.flushHeaders();
    watch(() => exchange.answered(answer.statusCode ?? 502, answer.headers));
    answer.pipe(res);
    answer.on('error', () => res.destroy());
    decoded(
      answer,
      answer.headers,
      (chunk) => watch(() => exchange.responseBytes(chunk)),
      () => {
        clearTimeout(bound);
        watch(() => exchange.ended());
      },
    );
  });
  upstream.on('error', (error) => {
    clearTimeout(bound);
    if (res.headersSent) {
      res.destroy();
      watch(() => exchange.broken());
      return;
    }
    const why = `${tap.upstream.origin} did not answer: ${error.message}`;
    res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`lens tap: ${why}\n`);
    watch(() => exchange.failed(502, why));
  });
  res.on('close', () => {
    if (res.writableFinished) return;
    clearTimeout(bound);
    upstream.destroy();
    watch(() => exchange.broken());
  });
}

function passedOn(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

/**
 * Hands the body's bytes to `data` as the recorder must read them: decompressed when the body says it is (the
 * bytes passed on stay as they are), then `end`. A body it cannot decompress reaches the recorder as no body.
 */
function decoded(
  body: IncomingMessage,
  headers: IncomingHttpHeaders,
  data: (chunk: Uint8Array) => void,
  end: () => void,
): void {
  const encoding = String(headers['content-encoding'] ?? '').toLowerCase();
  const inflate =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  if (inflate === null) {
    body.on('data', data);
    body.on('end', end);
    return;
  }
  body.on('data', (chunk) => inflate.write(chunk));
  body.on('end', () => inflate.end());
  inflate.on('data', data);
  inflate.on('end', end);
  inflate.on('error', end);
}
