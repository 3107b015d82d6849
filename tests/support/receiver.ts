import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  body: unknown;
  headers: IncomingHttpHeaders;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Answer with the request's own body (a receiver that quotes what it refused). */
  echo?: boolean;
}

/**
 * A local receiver for alert targets (real HTTP on 127.0.0.1) that answers each path with its scripted answers in
 * turn, the last one repeating; a path without a script answers 404. Every request is recorded, body parsed.
 */
export async function startReceiver(script: Record<string, ScriptedAnswer[]>) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, body: JSON.parse(text), headers: req.headers });
      const answers = script[path] ?? [{ status: 404 }];
      const answer = (answers.length > 1 ? answers.shift() : answers[0]) ?? { status: 500 };
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.echo ? text : 'receiver says no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** What one path got, in order. */
    bodiesAt: (path: string) => received.filter((r) => r.path === path).map((r) => r.body),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
