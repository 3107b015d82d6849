/**
 * RFC 8785 (JCS) canonical JSON, with one deliberate addition: every string, member names included, is
 * NFC-normalised before it is escaped and sorted. Request identity hashes this text, and two encoders that
 * wrote "é" as U+00E9 and as "e" + U+0301 are describing the same request.
 *
 * Runs on the ingest hot path, so the common case (ASCII strings, ASCII member names) allocates nothing beyond
 * the output string and the key array `Object.keys` hands back.
 */

// Printable ASCII except '"' and '\' goes between the quotes as is; anything else needs a closer look.
const NEEDS_CARE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
// Every character below U+0300 is NFC quick-check Yes with combining class 0 (ICU's minNoMaybeCP), so text made
// only of them, Latin-1 included, is already NFC and cannot hold a surrogate: skip the costly normalize call.
const MAYBE_NOT_NFC = /[\u0300-\uffff]/;
// With the u flag a well-formed pair matches as one astral code point, so only unpaired halves match here.
const LONE_SURROGATE = /\p{Cs}/u;
// JSON.parse accepts any depth; a fixed cap makes "too deep" the same answer on every machine instead of
// depending on the stack size, and turns a cyclic object into a TypeError rather than a stack overflow.
const MAX_DEPTH = 1000;

export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

/**
 * The canonical JSON of a value read from a log, or null where it has none: a lone surrogate, nesting past the cap
 * (the TypeErrors above). What a line carries is never a reason to stop an ingest or a fold, so readers of log
 * values call this, and decide what "none" means for them.
 */
export function canonicalJsonOrNull(value: unknown): string | null {
  try {
    return write(value, 0);
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}

function write(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return number(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) {
        throw new TypeError(`canonicalJson: nested more than ${MAX_DEPTH} levels deep (or cyclic)`);
      }
      return Array.isArray(value) ? writeArray(value, depth + 1) : writeObject(value, depth + 1);
    default:
      throw new TypeError(`canonicalJson: ${typeof value} is not a JSON value`);
  }
}

function number(value: number): string {
  // RFC 8785 section 3.2.2.3: NaN and Infinity must fail rather than turn into null as JSON.stringify does.
  if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not a JSON number`);
  // String() is ECMAScript Number::toString, the exact algorithm section 3.2.2.3 names (-0 gives "0").
  return String(value);
}

function quote(text: string): string {
  if (!NEEDS_CARE.test(text)) return `"${text}"`;
  // JSON.stringify of a string is ECMAScript QuoteJSONString, which RFC 8785 section 3.2.2.2 is written
  // against: \b \t \n \f \r, other controls as lowercase \u00xx, '"' and '\' escaped, '/' and non-ASCII as is.
  return JSON.stringify(nfc(text));
}

function nfc(text: string): string {
  if (!MAYBE_NOT_NFC.test(text)) return text;
  // RFC 8785 section 3.2.2.2: lone surrogates must fail; they are not Unicode and UTF-8 cannot carry them.
  if (LONE_SURROGATE.test(text)) throw new TypeError('canonicalJson: string contains a lone surrogate');
  return text.normalize('NFC');
}

function writeArray(items: readonly unknown[], depth: number): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    // Holes and undefined are not JSON; JSON.stringify would quietly write null and merge them with null.
    const item = items[i];
    if (item === undefined) throw new TypeError(`canonicalJson: array element ${i} is undefined`);
    out += write(item, depth);
  }
  return `${out}]`;
}

function writeObject(object: object, depth: number): string {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    // A Map, Date or class instance has no single JSON form; refusing beats hashing "{}" for all of them.
    throw new TypeError(`canonicalJson: ${object.constructor?.name ?? 'exotic object'} is not a plain JSON object`);
  }
  const record = object as Record<string, unknown>;
  const keys = Object.keys(record);
  // Normalised name -> name as written; only built when some name actually changes under NFC.
  let written: Map<string, string> | undefined;
  let index = 0;
  for (const key of keys) {
    const normal = nfc(key);
    if (normal !== key) {
      written ??= new Map();
      if (written.has(normal)) throw collision(normal);
      written.set(normal, key);
      keys[index] = normal;
    }
    index++;
  }
  sortNames(keys);
  let out = '{';
  let previous: string | undefined;
  for (const key of keys) {
    // Names arrive unique, so a repeat can only be a normalised name meeting one already written in NFC.
    if (key === previous) throw collision(key);
    previous = key;
    const member = record[written?.get(key) ?? key];
    // As in JSON.stringify: a member set to undefined is treated as absent.
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    // The name is already in NFC, so only escaping is left to do.
    out += `${NEEDS_CARE.test(key) ? JSON.stringify(key) : `"${key}"`}:${write(member, depth)}`;
  }
  return `${out}}`;
}

// Request params mostly have a handful of members, where an insertion sort beats the setup cost of Array#sort.
const INSERTION_SORT_MAX = 16;

/** Sorts by UTF-16 code unit, the order RFC 8785 section 3.2.3 asks for; both `>` and the default sort use it. */
function sortNames(names: string[]): void {
  if (names.length > INSERTION_SORT_MAX) {
    names.sort();
    return;
  }
  for (let i = 1; i < names.length; i++) {
    const name = names[i] as string;
    let j = i - 1;
    for (; j >= 0 && (names[j] as string) > name; j--) names[j + 1] = names[j] as string;
    names[j + 1] = name;
  }
}

function collision(name: string): TypeError {
  return new TypeError(`canonicalJson: two member names are both ${JSON.stringify(name)} after NFC normalisation`);
}
