import { open, unlink } from 'node:fs/promises';
import type { EventLine } from '../../shared/tap/events.ts';
import { BatchRefused, nextWait, shipBatch } from './ship.ts';
import { Appender } from './tap-append.ts';

/** Where the tap's events go. `write` never throws and never waits; `close` says what did not arrive, if anything. */
export interface Sink {
  write(event: EventLine): void;
  /**
   * Lines for stderr: what was lost or is still waiting, and how to send it. Empty when all is well. `stop` cuts
   * short any wait for a server (the events stay on disk): a host that asked us to go must not have to kill us.
   */
  close(stop?: AbortSignal): Promise<string[]>;
}

/** `--out FILE`: NDJSON appended, the file created when missing. */
export function fileSink(path: string): Sink {
  const file = new Appender(path);
  return {
    write: (event) => file.add(JSON.stringify(event)),
    async close() {
      await file.close();
      return file.lost === 0 ? [] : [`${file.lost} event(s) lost: cannot write ${path} (${file.problem})`];
    },
  };
}

/** What the spool on disk may hold unsent before new events are dropped (and counted). */
const MAX_SPOOL_BYTES = 256 * 1024 * 1024;
/** One POST: the ingest route takes 16 MiB by default; a batch holds at least one event, however large. */
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_EVENTS = 5_000;
/** At exit, how long the last events may take to reach a server that is up, before they are left in the spool. */
const DRAIN_MS = 3_000;
const LONGEST_WAIT_MS = 60_000;

/**
 * `--url URL`: events go to a spool file first (so a server that is away costs nothing but disk, bounded), and a
 * shipper sends them in batches with `shipBatch`, one attempt at a time; a server that does not answer is tried again
 * with `nextWait`'s backoff for as long as the tap runs. A refused batch (a wrong token, say) stops the shipping and
 * keeps the spool. At exit whatever is unsent stays in the spool, which `lens ingest` can send.
 */
export function shipSink(url: string, token: string | null, spoolPath: string): Sink {
  return new Shipper(url, token, spoolPath);
}

class Shipper implements Sink {
  private readonly spool: Appender;
  /** Byte lengths of the spooled lines not yet sent, in file order, from `offset`. */
  private readonly unsent: number[] = [];
  private unsentBytes = 0;
  private offset = 0;
  private rejected = 0;
  private overflow = 0;
  private refused: string | null = null;
  private problem: string | null = null;
  private closing = false;
  private wake: { done: () => void; onEvent: boolean } | null = null;
  private readonly loop: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly token: string | null,
    private readonly spoolPath: string,
  ) {
    this.spool = new Appender(spoolPath, (lengths) => {
      for (const length of lengths) {
        this.unsent.push(length);
        this.unsentBytes += length;
      }
      this.poke('event');
    });
    this.loop = this.run().catch((error) => {
      this.problem = error instanceof Error ? error.message : String(error);
    });
  }

  write(event: EventLine): void {
    if (this.unsentBytes > MAX_SPOOL_BYTES) {
      this.overflow++;
      return;
    }
    this.spool.add(JSON.stringify(event));
  }

  async close(stop?: AbortSignal): Promise<string[]> {
    // Closing only once the spool holds every event: the loop takes "no batch while closing" for "all sent", and
    // an event still on its way to the disk is not in `unsent` yet.
    await this.spool.flushed();
    this.closing = true;
    this.poke('close');
    let timer: NodeJS.Timeout | undefined;
    const stopped = new Promise((resolve) => stop?.addEventListener('abort', resolve, { once: true }));
    if (!stop?.aborted)
      await Promise.race([this.loop, stopped, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
    clearTimeout(timer);
    await this.spool.close();
    return this.report();
  }

  private report(): string[] {
    const lines: string[] = [];
    const lost = this.spool.lost + this.overflow;
    if (lost > 0) {
      const why = this.overflow > 0 ? `the spool held ${MAX_SPOOL_BYTES / 1024 / 1024} MiB unsent` : this.spool.problem;
      lines.push(`${lost} event(s) lost: ${why}`);
    }
    if (this.rejected > 0) lines.push(`${this.rejected} event(s) rejected by ${this.url}`);
    const left = this.unsent.length;
    if (left === 0) {
      if (this.spool.written > 0) unlink(this.spoolPath).catch(() => {});
      return lines;
    }
    const why = this.refused ?? this.problem ?? 'not sent before exit';
    lines.push(
      `${left} event(s) not sent to ${this.url} (${why}); kept in ${this.spoolPath}, ` +
        `which \`npm run lens -- ingest ${this.spoolPath} --url ${this.url}\` sends`,
    );
    return lines;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (this.refused === null) {
      const batch = this.nextBatch();
      if (batch === null) {
        if (this.closing) return;
        if (this.offset > 0 && this.offset === this.spool.size)
          this.spool.truncate(this.offset, () => (this.offset = 0));
        await this.sleep(null);
        continue;
      }
      try {
        const report = await shipBatch(
          { url: this.url, token: this.token, giveUpAfterMs: 0 },
          await this.read(this.offset, batch.bytes),
        );
        this.rejected += report.rejectedTotal;
        this.unsent.splice(0, batch.count);
        this.unsentBytes -= batch.bytes;
        this.offset += batch.bytes;
        this.problem = null;
        attempt = 0;
      } catch (error) {
        if (error instanceof BatchRefused) this.refused = error.message;
        this.problem = error instanceof Error ? error.message : String(error);
        if (this.closing) return;
        attempt++;
        await this.sleep(nextWait(attempt, { status: 0 }, { budgetMs: Number.POSITIVE_INFINITY }) ?? LONGEST_WAIT_MS);
      }
    }
  }

  private nextBatch(): { count: number; bytes: number } | null {
    let count = 0;
    let bytes = 0;
    for (const length of this.unsent) {
      if (count > 0 && (bytes + length > BATCH_BYTES || count >= BATCH_EVENTS)) break;
      count++;
      bytes += length;
    }
    return count === 0 ? null : { count, bytes };
  }

  private async read(offset: number, bytes: number): Promise<string> {
    const handle = await open(this.spoolPath, 'r');
    try {
      const buffer = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(buffer, 0, bytes, offset);
      return buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /**
   * Waits `ms`, or with null until there is something to send. The exit cuts any wait short; a new event only an
   * idle one: a server that is away is not tried again for every event.
   */
  private sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? undefined : setTimeout(done, ms);
      timer?.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = { done, onEvent: ms === null };
    });
  }

  private poke(why: 'event' | 'close'): void {
    const wake = this.wake;
    if (wake === null || (why === 'event' && !wake.onEvent)) return;
    this.wake = null;
    wake.done();
  }
}
