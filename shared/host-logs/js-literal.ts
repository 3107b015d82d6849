/**
 * Reads what Node's `util.inspect` prints (supergateway's client side, mcp-remote's `--debug` stderr, mcp-proxy's
 * `transport event` blocks) back into a value: single-quoted strings, unquoted keys, `undefined`, nested values cut
 * to `[Object]` / `[Array]`, `... N more items`. What was cut stays visible as the text `"[Object]"`, so a reader
 * sees that `isError: true` survived and the content did not. Null when the text is no such literal.
 */
export const CUT = '[Object]';

type Value = unknown;

class Cursor {
  i = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i] as string)) this.i++;
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.i] ?? '';
  }

  startsWith(word: string): boolean {
    this.skipSpace();
    return this.text.startsWith(word, this.i);
  }
}

class NotALiteral extends Error {}

export function parseJsLiteral(text: string): Value | null {
  const cursor = new Cursor(text);
  try {
    const value = readValue(cursor, 0);
    cursor.skipSpace();
    return cursor.i === text.length ? value : null;
  } catch (error) {
    if (error instanceof NotALiteral) return null;
    throw error;
  }
}

/** util.inspect nests 2 levels by default; a text nesting far deeper is no inspect output. */
const MAX_DEPTH = 64;

function readValue(c: Cursor, depth: number): Value {
  if (depth > MAX_DEPTH) throw new NotALiteral();
  const next = c.peek();
  if (next === '{') return readObject(c, depth);
  if (next === '[') {
    const marker = /^\[(Object|Array|Function[^\]]*|Circular[^\]]*|Getter[^\]]*)\]/.exec(c.text.slice(c.i, c.i + 64));
    if (marker !== null) {
      c.i += marker[0].length;
      return `[${marker[1]}]`;
    }
    return readArray(c, depth);
  }
  if (next === "'" || next === '"' || next === '`') return readString(c);
  const word = /^(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?n?|[A-Za-z_$][\w$]*)/i.exec(c.text.slice(c.i, c.i + 64));
  if (word === null) throw new NotALiteral();
  c.i += word[0].length;
  const token = word[0];
  if (token === 'undefined') return undefined;
  if (token === 'null') return null;
  if (token === 'true') return true;
  if (token === 'false') return false;
  if (token === 'NaN' || token === 'Infinity') return null;
  if (/^-?\d/.test(token)) return Number(token.endsWith('n') ? token.slice(0, -1) : token);
  // A class name before its object (`McpError {`, `Map(1) {`): the object is the value.
  if (c.peek() === '{') return readObject(c, depth);
  throw new NotALiteral();
}

function readObject(c: Cursor, depth: number): Record<string, Value> {
  c.i++; // {
  const object: Record<string, Value> = {};
  for (;;) {
    const next = c.peek();
    if (next === '}') {
      c.i++;
      return object;
    }
    if (next === '') throw new NotALiteral();
    if (c.startsWith('...')) {
      skipMore(c);
      continue;
    }
    const key = readKey(c);
    if (c.peek() !== ':') throw new NotALiteral();
    c.i++;
    const value = readValue(c, depth + 1);
    if (value !== undefined) object[key] = value;
    if (c.peek() === ',') c.i++;
  }
}

function readArray(c: Cursor, depth: number): Value[] {
  c.i++; // [
  const array: Value[] = [];
  for (;;) {
    const next = c.peek();
    if (next === ']') {
      c.i++;
      return array;
    }
    if (next === '') throw new NotALiteral();
    if (c.startsWith('...')) {
      skipMore(c);
      continue;
    }
    array.push(readValue(c, depth + 1));
    if (c.peek() === ',') c.i++;
  }
}

/** `... 3 more items` (or `... more`): what inspect left out of a long array or object. */
function skipMore(c: Cursor): void {
  const more = /^\.\.\.( \d+ more items?)?/.exec(c.text.slice(c.i, c.i + 32));
  c.i += more?.[0].length ?? 3;
  if (c.peek() === ',') c.i++;
}

function readKey(c: Cursor): string {
  const next = c.peek();
  if (next === "'" || next === '"') return readString(c);
  const symbol = /^\[[^\]\n]{1,64}\]/.exec(c.text.slice(c.i, c.i + 66));
  if (symbol !== null) {
    c.i += symbol[0].length;
    return symbol[0];
  }
  const word = /^[\w$-]+/.exec(c.text.slice(c.i, c.i + 256));
  if (word === null) throw new NotALiteral();
  c.i += word[0].length;
  return word[0];
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

function readString(c: Cursor): string {
  const quote = c.text[c.i] as string;
  c.i++;
  let out = '';
  while (c.i < c.text.length) {
    const ch = c.text[c.i] as string;
    c.i++;
    if (ch === quote) {
      // util.inspect breaks a long string into 'part' +\n 'part'.
      const joined = /^\s*\+\s*(['"`])/.exec(c.text.slice(c.i, c.i + 256));
      if (joined === null) return out;
      c.i += joined[0].length - 1;
      return out + readString(c);
    }
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const escaped = c.text[c.i] ?? '';
    c.i++;
    if (escaped === 'x' || escaped === 'u') {
      const length = escaped === 'x' ? 2 : 4;
      const code = Number.parseInt(c.text.slice(c.i, c.i + length), 16);
      if (Number.isNaN(code)) throw new NotALiteral();
      out += String.fromCharCode(code);
      c.i += length;
    } else out += ESCAPES[escaped] ?? escaped;
  }
  throw new NotALiteral();
}
