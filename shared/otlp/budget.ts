/**
 * What decoding one OTLP body may cost, counted as it is decoded (issue 39, item 1). The body's size is bounded
 * before (--max-body, after gunzip too), but size is not cost: an empty `ResourceSpans` is two bytes on the wire and a
 * hundred in memory, so 16 MiB of them once blocked the server for seconds and took gigabytes. Each part a body can
 * repeat is counted here, and the decoder stops at the first one past its limit, having built nothing past it; the
 * route answers 413 saying which part to narrow.
 *
 * The limits are far above what an exporter sends (OpenTelemetry SDKs batch 512 spans of at most 128 attributes and
 * 128 events; a collector a few thousand spans) and far below what the body limit could otherwise make the decoders
 * build.
 */
export const OTLP_LIMITS = {
  resources: 1_000,
  scopes: 10_000,
  spans: 100_000,
  /** Key-values of resources, spans and span events, together. */
  attributes: 1_000_000,
  events: 100_000,
  /** Members of array values, at every depth. */
  values: 100_000,
  /** JSON objects and arrays, counted before JSON.parse builds any: the JSON encoding's whole tree. */
  containers: 1_000_000,
  /** How deep JSON may nest (OTLP's own structure is a dozen levels; an attribute's arrays add two a level). */
  nesting: 64,
} as const;

export type BudgetPart = keyof typeof OTLP_LIMITS;

/** What to narrow when a part is over its limit: the words of the 413. */
const NARROW: Record<BudgetPart, { noun: string; fix: string }> = {
  resources: {
    noun: 'resourceSpans',
    fix: 'Send the spans of fewer processes (resources) per request: export smaller batches.',
  },
  scopes: { noun: 'scopeSpans', fix: 'Send fewer instrumentation scopes per request: export smaller batches.' },
  spans: { noun: 'spans', fix: "Export smaller batches (the BatchSpanProcessor's maxExportBatchSize)." },
  attributes: {
    noun: 'attributes',
    fix: "Export smaller batches, or fewer attributes per span (the SDK's attributeCountLimit).",
  },
  events: { noun: 'span events', fix: "Export smaller batches, or fewer events per span (the SDK's eventCountLimit)." },
  values: { noun: 'array attribute members', fix: 'Export smaller batches, or shorter array attributes.' },
  containers: { noun: 'JSON objects and arrays', fix: 'Export smaller batches, or send protobuf.' },
  nesting: { noun: 'levels of JSON nesting', fix: 'Nest attribute values less deeply.' },
};

/** A part over its limit: the decoders stop on it, whatever they were building. */
export class OverBudget extends Error {
  constructor(
    readonly part: BudgetPart,
    readonly limit: number,
  ) {
    super(`the body holds more than ${limit} ${NARROW[part].noun}`);
  }

  /** What to narrow so that the body is taken. */
  get fix(): string {
    return NARROW[this.part].fix;
  }
}

/** One body's allowance: the limits (OTLP_LIMITS unless given), and what has been spent so far, part by part. */
export class DecodeBudget {
  readonly limits: Record<BudgetPart, number>;
  readonly spent: Record<BudgetPart, number> = {
    resources: 0,
    scopes: 0,
    spans: 0,
    attributes: 0,
    events: 0,
    values: 0,
    containers: 0,
    nesting: 0,
  };

  constructor(limits: Partial<Record<BudgetPart, number>> = {}) {
    this.limits = { ...OTLP_LIMITS, ...limits };
  }

  /** Counts `count` more of `what`, or throws OverBudget once past the limit: before the caller builds them. */
  spend(what: BudgetPart, count = 1): void {
    this.spent[what] += count;
    if (this.spent[what] > this.limits[what]) throw new OverBudget(what, this.limits[what]);
  }

  /** A depth reached (not a count): the deepest is what is kept. */
  reach(what: 'nesting', depth: number): void {
    if (depth > this.spent[what]) this.spent[what] = depth;
    if (depth > this.limits[what]) throw new OverBudget(what, this.limits[what]);
  }
}

/**
 * Counts the JSON objects and arrays of a body and how deep they nest, without decoding it: one pass over the bytes,
 * skipping strings, so that JSON.parse never starts on a body whose tree would be too big to build.
 */
export function spendJsonShape(body: Uint8Array, budget: DecodeBudget): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      budget.spend('containers');
      budget.reach('nesting', ++depth);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
