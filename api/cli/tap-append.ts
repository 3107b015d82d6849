import { type FileHandle, open } from 'node:fs/promises';

/**
 * What may wait in memory for the disk: past it new lines are dropped and counted rather than held, so a stalled
 * disk never grows the recorder without bound.
 */
const MAX_QUEUED_BYTES = 32 * 1024 * 1024;

/**
 * Appends lines to one file, in order, one write at a time (lines that arrive meanwhile go together in the next
 * write). It never throws: a line it cannot write is counted as lost and the first reason kept, and the file is
 * opened again for the next write (a full disk may clear). `truncate` empties the file between writes.
 */
export class Appender {
  written = 0;
  lost = 0;
  problem: string | null = null;
  /** Bytes in the file: what `truncate` compares with. */
  size = 0;
  private queued: string[] = [];
  private queuedBytes = 0;
  private handle: FileHandle | null = null;
  private running: Promise<void> | null = null;
  private truncateAt: { size: number; emptied: () => void } | null = null;

  constructor(
    readonly path: string,
    /** Told of each write that reached the file: the byte length of every line in it, in order. */
    private readonly onWritten: (lineBytes: number[]) => void = () => {},
  ) {}

  add(line: string): void {
    const text = `${line}\n`;
    if (this.queuedBytes + text.length > MAX_QUEUED_BYTES) {
      this.lose(1, `more than ${MAX_QUEUED_BYTES / 1024 / 1024} MiB waiting for the disk`);
      return;
    }
    this.queued.push(text);
    this.queuedBytes += text.length;
    this.running ??= this.run();
  }

  /**
   * Empties the file once nothing is waiting, if it still ends at `size` (everything in it was taken); `emptied` is
   * told before any later line is written.
   */
  truncate(size: number, emptied: () => void): void {
    this.truncateAt = { size, emptied };
    this.running ??= this.run();
  }

  /** Resolves once everything added so far was written or counted lost. */
  async flushed(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  async close(): Promise<void> {
    await this.flushed();
    await this.handle?.close().catch(() => {});
    this.handle = null;
  }

  private async run(): Promise<void> {
    try {
      while (this.queued.length > 0 || this.truncateAt !== null) {
        if (this.queued.length === 0) {
          await this.empty();
          continue;
        }
        const batch = this.queued;
        this.queued = [];
        this.queuedBytes = 0;
        const lengths = batch.map((text) => Buffer.byteLength(text));
        try {
          this.handle ??= await open(this.path, 'a');
          await this.handle.appendFile(batch.join(''));
          this.size += lengths.reduce((a, b) => a + b, 0);
          this.written += batch.length;
          this.onWritten(lengths);
        } catch (error) {
          this.lose(batch.length, error instanceof Error ? error.message : String(error));
          await this.handle?.close().catch(() => {});
          this.handle = null;
        }
      }
    } finally {
      this.running = null;
    }
  }

  private async empty(): Promise<void> {
    const wanted = this.truncateAt;
    this.truncateAt = null;
    if (wanted === null || wanted.size !== this.size || this.handle === null) return;
    try {
      await this.handle.truncate(0);
      this.size = 0;
      wanted.emptied();
    } catch {
      // Kept as it is: it is only read from the offsets already taken, and the next truncate tries again.
    }
  }

  private lose(lines: number, why: string): void {
    this.lost += lines;
    this.problem ??= why;
  }
}
