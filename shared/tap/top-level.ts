/**
 * What a JSON-RPC frame too large to keep says at its top level, read byte by byte without holding it: enough to
 * pair it (its id), name it (its method) and tell a result from an error (its members, the error's code). The
 * recorder passes such a frame through whole but records only this (DOMAIN.md section 2 keeps frames untouched, so
 * a frame is either kept whole or not at all).
 */
export interface FrameSummary {
  /** The frame's size in bytes, its newline left out. */
  bytes: number;
  /** The top-level members in the order they came (`jsonrpc`, `id`, `result`, ...). */
  members: string[];
  id?: string | number | null;
  method?: string;
  /** `error.code`, when `error` is an object with a numeric code. */
  errorCode?: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** A scalar longer than this (an id, a method, a key) is no name worth keeping. */
const MAX_SCALAR_BYTES = 256;
/** The top-level members whose scalar values are read, and `error`'s. */
const TOP_VALUES = new Set(['id', 'method']);
const ERROR_VALUES = new Set(['code']);

/**
 * Reads one JSON text in pieces. Only the object at depth 1 and the `error` object at depth 2 are looked at; inside
 * strings it skips to the next quote or backslash natively, so a 50 MB text block costs little more than a search.
 */
export class TopLevelScanner {
  private bytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Whether the next string at a watched depth is a member name. */
  private expectKey = false;
  /** The member whose value is being read at the watched depth. */
  private key: string | null = null;
  private topKey: string | null = null;
  private inError = false;
  private capture: number[] | null = null;
  private captureIsKey = false;
  private captureIsString = false;
  private readonly members: string[] = [];
  private readonly values = new Map<string, unknown>();
  private readonly errorValues = new Map<string, unknown>();
  private readonly decoder = new TextDecoder();

  push(piece: Uint8Array): void {
    this.bytes += piece.length;
    let i = 0;
    while (i < piece.length) {
      if (this.inString) {
        i = this.inStringAt(piece, i);
        continue;
      }
      const byte = piece[i] as number;
      i++;
      if (byte === QUOTE) {
        this.endScalar();
        this.inString = true;
        if (this.watched()) this.startCapture(this.expectKey, true);
        continue;
      }
      if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
        this.endScalar();
        this.depth++;
        if (byte === 0x7b && this.depth === 1) this.expectKey = true;
        else if (byte === 0x7b && this.depth === 2 && this.topKey === 'error') {
          this.inError = true;
          this.expectKey = true;
        }
        continue;
      }
      if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) {
        this.endScalar();
        this.depth--;
        if (this.depth <= 1) this.inError = false;
        continue;
      }
      if (byte === 0x3a /* : */) {
        this.endScalar();
        if (this.watched()) this.expectKey = false;
        continue;
      }
      if (byte === 0x2c /* , */) {
        this.endScalar();
        if (this.watched()) this.expectKey = true;
        continue;
      }
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) {
        this.endScalar();
        continue;
      }
      // A number or a literal (true, false, null).
      if (this.capture === null && this.watched() && !this.expectKey) this.startCapture(false, false);
      if (this.capture !== null && !this.captureIsString) this.keep(byte);
    }
  }

  summary(): FrameSummary {
    this.endScalar();
    const summary: FrameSummary = { bytes: this.bytes, members: this.members };
    const id = this.values.get('id');
    if (typeof id === 'string' || typeof id === 'number' || id === null) summary.id = id;
    const method = this.values.get('method');
    if (typeof method === 'string') summary.method = method;
    const code = this.errorValues.get('code');
    if (typeof code === 'number') summary.errorCode = code;
    return summary;
  }

  /** Inside a string: the index after what this call read of it. */
  private inStringAt(piece: Uint8Array, from: number): number {
    if (this.escaped) {
      this.escaped = false;
      if (this.capture !== null) this.keep(piece[from] as number);
      return from + 1;
    }
    if (this.capture === null) {
      const quote = piece.indexOf(QUOTE, from);
      const slash = piece.indexOf(BACKSLASH, from);
      if (slash !== -1 && (quote === -1 || slash < quote)) {
        this.escaped = true;
        return slash + 1;
      }
      if (quote === -1) return piece.length;
      this.inString = false;
      return quote + 1;
    }
    const byte = piece[from] as number;
    if (byte === BACKSLASH) {
      this.escaped = true;
      this.keep(byte);
    } else if (byte === QUOTE) {
      this.inString = false;
      this.endString();
    } else this.keep(byte);
    return from + 1;
  }

  /** Depth 1, or the `error` object's own members. */
  private watched(): boolean {
    return this.depth === 1 || (this.depth === 2 && this.inError);
  }

  private startCapture(isKey: boolean, isString: boolean): void {
    this.capture = [];
    this.captureIsKey = isKey;
    this.captureIsString = isString;
    if (isString) this.capture.push(QUOTE);
  }

  private keep(byte: number): void {
    if (this.capture === null) return;
    if (this.capture.length >= MAX_SCALAR_BYTES) {
      // Too long to be a name: read on without it. A key that long is still a member, unnamed.
      this.capture = null;
      if (this.captureIsKey) this.key = null;
      return;
    }
    this.capture.push(byte);
  }

  private endString(): void {
    if (this.capture === null) return;
    this.capture.push(QUOTE);
    this.endCapture();
  }

  private endScalar(): void {
    if (this.capture !== null && !this.captureIsString) this.endCapture();
  }

  private endCapture(): void {
    const bytes = this.capture;
    this.capture = null;
    if (bytes === null) return;
    let value: unknown;
    try {
      value = JSON.parse(this.decoder.decode(new Uint8Array(bytes)));
    } catch {
      return;
    }
    if (this.captureIsKey) {
      this.key = typeof value === 'string' ? value : null;
      if (this.depth === 1 && this.key !== null) {
        this.topKey = this.key;
        this.members.push(this.key);
      }
      return;
    }
    if (this.key === null) return;
    if (this.depth === 1 && TOP_VALUES.has(this.key)) this.values.set(this.key, value);
    else if (this.inError && ERROR_VALUES.has(this.key)) this.errorValues.set(this.key, value);
  }
}
