import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { StdioRecorder } from '../../shared/tap/stdio-recorder.ts';
import type { Sink } from './tap-sink.ts';

export interface StdioTap {
  server: string;
  client?: string;
  command: string;
  args: string[];
  boundMs: number;
  sink: Sink;
}

/** How often requests are checked for the bound. */
const TICK_MS = 1_000;
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Stands where the host starts a stdio server: starts it, and passes every byte both ways as it comes (stdin to the
 * server's stdin, its stdout to stdout, its stderr to stderr), each chunk written on before the recorder reads a copy.
 * The recorder can only lose events, never bytes: whatever it throws is counted and recording stops, the pump goes
 * on. Ends when the server does, with its exit code (128 + the signal's number when a signal ended it).
 */
export async function runStdioTap(tap: StdioTap): Promise<{ code: number; notes: string[] }> {
  const session = randomUUID();
  const notes: string[] = [];
  const recorder = new StdioRecorder({
    server: tap.server,
    client: tap.client,
    session,
    boundMs: tap.boundMs,
    idPrefix: `tap-${session}`,
    emit: (event) => tap.sink.write(event),
  });
  let recording = true;
  const observe = (read: () => void) => {
    if (!recording) return;
    try {
      read();
    } catch (error) {
      recording = false;
      notes.push(`recording stopped after an internal error: ${error instanceof Error ? error.message : error}`);
    }
  };

  const child = spawn(tap.command, tap.args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const started = new Promise<string | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (error) => resolve(error.message));
  });
  const startError = await started;
  if (startError !== null) {
    observe(() => recorder.exited({ code: null, signal: null, error: startError }));
    notes.unshift(`cannot start ${tap.command}: ${startError}`);
    return { code: 127, notes };
  }

  pump(process.stdin, child.stdin, (chunk) => observe(() => recorder.bytes('client', chunk)));
  pump(child.stdout, process.stdout, (chunk) => observe(() => recorder.bytes('server', chunk)));
  pump(child.stderr, process.stderr, (chunk) => observe(() => recorder.stderr(chunk)));
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  const ticker = setInterval(() => observe(() => recorder.tick()), TICK_MS);
  ticker.unref();

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  clearInterval(ticker);
  for (const name of FORWARDED_SIGNALS) process.off(name, forward);
  process.stdin.destroy();
  observe(() => recorder.exited({ code, signal }));
  if (recorder.unmatched > 0)
    notes.push(`${recorder.unmatched} answer(s) matched no open request (late past the bound)`);
  return { code: code ?? 128 + signalNumber(signal), notes };
}

/**
 * Copies `from` to `to` chunk by chunk, holding `from` while `to` is full (the pipe's own backpressure, as `pipe()`
 * does), then hands the chunk to `seen`. A destination that is gone (the host closed our stdout, the server its
 * stdin) is no error of ours: the bytes have nowhere to go, and the other direction keeps flowing.
 */
function pump(from: Readable, to: Writable, seen: (chunk: Uint8Array) => void): void {
  to.on('error', () => {});
  to.on('close', () => from.resume());
  from.on('data', (chunk: Buffer) => {
    if (!to.destroyed && !to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
    seen(chunk);
  });
  from.on('end', () => {
    if (to !== process.stdout && to !== process.stderr) to.end();
  });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : constants.signals[signal];
}
