import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { CliError, UsageError } from './cli-error.ts';
import { parseWait } from './duration.ts';
import { defaultStatePath } from './ingest-state.ts';
import { runHttpTap } from './tap-http.ts';
import { fileSink, type Sink, shipSink } from './tap-sink.ts';
import { runStdioTap } from './tap-stdio.ts';

/**
 * `lens tap`: records a stdio server's traffic as native events while passing it through untouched
 * (`-- COMMAND ARGS`), or a Streamable HTTP server's as a reverse proxy (`--listen PORT --upstream URL`). It
 * exits when the server does, with its code; what it could not record or send is said on stderr at the end.
 */
export async function tapCommand(args: string[]): Promise<number> {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const command = split === -1 ? [] : args.slice(split + 1);
  const { values } = parseArgs({
    args: own,
    options: {
      server: { type: 'string' },
      client: { type: 'string' },
      out: { type: 'string' },
      url: { type: 'string' },
      spool: { type: 'string' },
      timeout: { type: 'string', default: '60s' },
      listen: { type: 'string' },
      upstream: { type: 'string' },
    },
  });
  const boundMs = parseWait('--timeout', values.timeout);
  const http = values.listen !== undefined || values.upstream !== undefined;
  if (http && command.length > 0) throw new UsageError('either -- COMMAND (stdio) or --listen and --upstream (HTTP)');
  if (!http && command.length === 0) throw new UsageError('no server to start: -- COMMAND [ARGS] comes last');
  if (values.out !== undefined && values.url !== undefined) throw new UsageError('--out FILE or --url URL, not both');
  if (values.out === undefined && values.url === undefined)
    throw new UsageError('--out FILE or --url URL says where events go');
  if (http) {
    if (values.listen === undefined || values.upstream === undefined) {
      throw new UsageError('the HTTP tap needs both --listen PORT and --upstream URL');
    }
    const upstream = httpUrl('--upstream', values.upstream);
    const server = values.server ?? upstream.host;
    const sink = openSink(values, server);
    const port = Number(values.listen);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('--listen takes a port number', 2);
    return finish(await runHttpTap({ port, upstream, server, client: values.client, boundMs, sink }), sink);
  }
  if (values.server === undefined) throw new UsageError('--server NAME names the server, as the host names it');
  const sink = openSink(values, values.server);
  const [program, ...programArgs] = command as [string, ...string[]];
  return finish(
    await runStdioTap({
      server: values.server,
      client: values.client,
      command: program,
      args: programArgs,
      boundMs,
      sink,
    }),
    sink,
  );
}

function openSink(values: { out?: string; url?: string; spool?: string }, server: string): Sink {
  if (values.out !== undefined) return fileSink(values.out);
  const url = httpUrl('--url', values.url as string).href.replace(/\/+$/, '');
  const dir = values.spool ?? join(dirname(defaultStatePath()), 'tap');
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    // Shown at exit as events that could not be spooled; the traffic flows regardless.
  }
  const file = `${server.replace(/[^\w.-]+/g, '_')}-${process.pid}-${Date.now()}.ndjson`;
  return shipSink(url, process.env.LENS_TOKEN || null, join(dir, file));
}

function httpUrl(flag: string, text: string): URL {
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) {
    throw new CliError(`${flag} takes an http(s):// address, such as http://127.0.0.1:7700; got "${text}"`, 2);
  }
  return new URL(text);
}

/** Says what was lost or left unsent (only then: stderr is the server's too), and ends with the server's code. */
async function finish(result: { code: number; notes: string[] }, sink: Sink): Promise<number> {
  // The server is gone; a signal now (a host's SDK sends SIGTERM two seconds after closing our stdin) ends the wait
  // for the collector instead of the process, so the note below still says where the unsent events are.
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
  const notes = [...result.notes, ...(await sink.close(stop.signal))];
  for (const note of notes) process.stderr.write(`lens tap: ${note}\n`);
  // A shipment still in flight must not keep the host waiting for a server that has already gone.
  process.exit(result.code);
}
