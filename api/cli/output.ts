/** Buffered stdout that respects back-pressure, so a 5 GB input streams through in constant memory. */
export class LineWriter {
  private buffer = '';

  constructor(private readonly stream: NodeJS.WritableStream = process.stdout) {}

  async write(line: string): Promise<void> {
    this.buffer += `${line}\n`;
    if (this.buffer.length >= 1 << 16) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer;
    this.buffer = '';
    if (!this.stream.write(chunk)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }
}
