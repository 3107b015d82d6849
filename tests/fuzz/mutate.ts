import { parseEventLine } from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';

/**
 * Seeded mutations of real log lines, for the fuzz suite (tests/fuzz) and its long run (`npm run fuzz`): the same
 * seed gives the same inputs, so any failure can be replayed from the seed it prints.
 */

export interface Random {
  next(): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seeded(seed: number): Random {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: fast, and plenty for choosing mutations.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)] as never,
  };
}

const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 31,
  -(2 ** 53),
  1e308,
  '',
  '\u0000',
  '\uD800',
  '__proto__',
  'constructor',
  'x'.repeat(5000),
  '2026-13-45T99:99:99Z',
  '1969-12-31T23:59:59Z',
  [],
  [1, [2, [3]]],
  {},
  { __proto__: 1 },
  { jsonrpc: '2.0' },
];

/** A JSON-level mutation: a member replaced, removed or added, somewhere in the event. */
function mutateValue(value: unknown, r: Random, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > 6 || r.next() < 0.15) return r.pick(HOSTILE_VALUES);
  if (Array.isArray(value)) {
    const copy = [...value];
    if (copy.length > 0) copy[r.int(copy.length)] = mutateValue(copy[r.int(copy.length)], r, depth + 1);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const roll = r.next();
  if (roll < 0.2 && keys.length > 0) delete copy[r.pick(keys)];
  else if (roll < 0.3)
    copy[r.pick(['ts', 'server', 'client', 'http', 'request', 'response', '__proto__', 'extra'])] =
      r.pick(HOSTILE_VALUES);
  else if (keys.length > 0) {
    const key = r.pick(keys);
    copy[key] = mutateValue(copy[key], r, depth + 1);
  }
  return copy;
}

/** A text-level mutation: bytes the JSON encoder would never write. */
export function mutateText(text: string, r: Random): string {
  const at = r.int(text.length + 1);
  switch (r.int(5)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + r.pick(['"', '{', '}', ',', '\\', '\u0000', '\uFFFF', ']', ' ']) + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(at + 1 + r.int(8));
    case 3:
      return `${'['.repeat(r.int(3000))}${text}`;
    default:
      return text.replace(/[0-9]/, String(r.int(10)));
  }
}

/** One fuzzed line from a real one: mostly still JSON (to reach past the parser), sometimes not. */
export function fuzzLine(line: string, r: Random): string {
  if (r.next() < 0.25) return mutateText(line, r);
  let value: unknown = JSON.parse(line);
  for (let i = 1 + r.int(3); i > 0; i--) value = mutateValue(value, r);
  return JSON.stringify(value) ?? 'null';
}

/**
 * A batch of `size` fuzzed lines as an ingest body, with the ids of the lines that are events: what the ingest route
 * must store, whatever else the batch holds.
 */
export function fuzzBatch(real: readonly string[], size: number, r: Random): { body: string; good: string[] } {
  const lines = Array.from({ length: size }, () => fuzzLine(r.pick(real), r));
  const good: string[] = [];
  for (const line of lines) {
    const parsed = parseEventLine(line);
    if (parsed.ok) good.push(eventIdOf(parsed.event));
  }
  return { body: lines.join('\n'), good };
}
