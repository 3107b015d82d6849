/** A progress bar on stderr when it is a terminal; a one-line summary per file otherwise. */
export class Progress {
  private accepted = 0;
  private duplicates = 0;
  private rejected = 0;
  private position: number;
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly name: string,
    private readonly size: number,
    start: number,
  ) {
    this.position = start;
  }

  count(accepted: number, duplicates: number, rejected: number): void {
    this.accepted += accepted;
    this.duplicates += duplicates;
    this.rejected += rejected;
  }

  advance(position: number): void {
    this.position = position;
    if (this.tty) process.stderr.write(`\r${this.bar()}`);
  }

  /** A message on its own line, without tearing the bar. */
  log(message: string): void {
    process.stderr.write(`${this.tty ? '\r\x1b[K' : ''}${message}\n`);
  }

  done(): void {
    // Sent again with --restart, or a copy of a file sent before: nothing new reached the store, and that is fine.
    const stored = this.accepted === 0 && this.duplicates > 0 ? ' (every line was stored already)' : '';
    process.stderr.write(`${this.tty ? '\r\x1b[K' : ''}${this.bar()}${stored}\n`);
  }

  private bar(): string {
    const share = this.size === 0 ? 1 : Math.min(1, this.position / this.size);
    const filled = Math.round(share * 30);
    const counts = `${this.accepted} accepted, ${this.duplicates} duplicate, ${this.rejected} rejected`;
    return `${this.name} [${'#'.repeat(filled)}${'-'.repeat(30 - filled)}] ${(share * 100).toFixed(0)}% ${counts}`;
  }
}
