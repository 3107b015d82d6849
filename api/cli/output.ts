/** Buffered stdout that respects back-pressure, so a 5 GB input streams through in constant memory. */
export class LineWriter {
  private buffer = '';

  constructor(private readonly stream: NodeJS.WritableStream = process.stdout) {}

  async write(line: string): Promise<void> {
    await this.text(`${line}\n`);
  }

  /** Part of a line: a document too large to build in memory is written piece by piece. */
  async text(part: string): Promise<void> {
    this.buffer += part;
    if (this.buffer.length >= 1 << 16) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer;
    this.buffer = '';
    if (!this.stream.write(chunk)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }
}
