/**
 * Partitions' storm tracker states kept decoded between folds, so that a live pair's fold does not decode the state
 * it encoded itself the fold before (shared/analysis/storm-state-codec.ts: ~13 µs a pair-fold on the bench's
 * states, ~70 on a 146-attempt tail, and garbage for the collector).
 *
 * What the store holds is what counts: a kept state is handed out only for exactly the text it was encoded to, and
 * the caller reads that text from the store in the transaction that steps the partition. A fold that rolled back,
 * a replay, another server writing the same PostgreSQL database, a restart: each leaves a text that differs (or, if
 * equal, decodes to the same state), so the kept state is never wrong, only unused. A state handed out leaves the
 * cache: its caller steps it, and whatever it encodes next is kept anew.
 *
 * Bounded by bytes (the server stays under 300 MB, issue 39): a state decoded holds ~1.7 bytes of heap per byte of
 * its text, which is held beside it for the comparison. When full, a pair idle for a while gives its room; pairs
 * that fold on keep theirs, and what does not fit is decoded as before.
 */
import { decodeStormState } from './storm-state-codec.ts';
import type { PartitionStormState } from './storm-tracker.ts';

interface Kept {
  text: string;
  state: PartitionStormState;
  at: number;
}

/** Heap per byte of a kept state's text: the text itself and the state decoded from it (~1.7, measured). */
const BYTES_PER_CHAR = 3;

export class StormStateCache {
  /** By partition, in the order they were kept: the first are the longest unused. */
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    /** A pair unused this long gives its room to another. */
    private readonly idleMs: number = 60_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The state the store holds for the partition as `text`: the one kept for exactly that text (taken out of the
   * cache: the caller may step it), else decoded. Null for no text, or one of an earlier definition.
   */
  take(partition: string, text: string | null): PartitionStormState | null {
    const kept = this.drop(partition);
    if (kept !== undefined && kept.text === text) return kept.state;
    return decodeStormState(text);
  }

  /** Keeps the state just encoded as `text`, for the partition's next fold; the caller changes it no more. */
  keep(partition: string, text: string, state: PartitionStormState): void {
    this.drop(partition);
    const size = text.length * BYTES_PER_CHAR;
    const now = this.now();
    for (const [oldest, kept] of this.kept) {
      if (this.bytes + size <= this.maxBytes || now - kept.at < this.idleMs) break;
      this.drop(oldest);
    }
    if (this.bytes + size > this.maxBytes) return;
    this.kept.set(partition, { text, state, at: now });
    this.bytes += size;
  }

  private drop(partition: string): Kept | undefined {
    const kept = this.kept.get(partition);
    if (kept === undefined) return undefined;
    this.kept.delete(partition);
    this.bytes -= kept.text.length * BYTES_PER_CHAR;
    return kept;
  }
}
