import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where each file's shipping stopped, per target URL, so an interrupted ingest resumes instead of starting over. */
export interface Checkpoint {
  /** Byte offset after the last line the server committed. */
  offset: number;
  /** The next line number to read. */
  line: number;
}

export function defaultStatePath(): string {
  const base = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(base, 'refusal-lens', 'ingest.json');
}

export class IngestState {
  private readonly entries: Record<string, Checkpoint>;

  constructor(private readonly path: string) {
    try {
      this.entries = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Checkpoint>;
    } catch {
      this.entries = {};
    }
  }

  get(url: string, file: string): Checkpoint | undefined {
    return this.entries[`${url} ${file}`];
  }

  /** Written atomically (temp file, then rename), so a crash mid-write never loses the previous checkpoint. */
  set(url: string, file: string, checkpoint: Checkpoint): void {
    this.entries[`${url} ${file}`] = checkpoint;
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.entries));
    renameSync(temp, this.path);
  }
}
