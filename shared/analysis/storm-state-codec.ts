/**
 * A partition's storm tracker state as the store files it (gate_partitions.storms), written after every batch that
 * touches the partition. Most of it is the undecided tail: up to a probe window of attempts, which in a storm repeat
 * the same few keys, endpoints and kinds. Those strings are written once each, and an attempt is its id, its time,
 * its flags and indexes into them: a prober refused once a second leaves ~300 attempts in the tail, ~12 KB so
 * instead of ~120 KB.
 */
import type { StormFact } from './storm-facts.ts';
import type { PartitionStormState, SideStormState, TailFact } from './storm-tracker.ts';

const TEXT_FIELDS = [
  'side',
  'bucket',
  'kind',
  'key',
  'endpoint',
  'endpointTarget',
  'methodTarget',
  'probes',
  'what',
  'connectLabel',
] as const satisfies readonly (keyof StormFact)[];

const FLAGS = [
  'avoidable',
  'undeclared',
  'connect',
  'stream',
  'continuation',
  'pending',
  'eraMismatch',
  'inProbe',
  'passed',
] as const satisfies readonly (keyof TailFact)[];

/** One attempt: id, time, flags, then an index per text field (-1: null). */
type EncodedFact = [string, number, number, ...number[]];

interface EncodedSide extends Omit<SideStormState, 'tail'> {
  tail: EncodedFact[];
}

interface EncodedState extends Omit<PartitionStormState, 'sides'> {
  texts: string[];
  sides: Partial<Record<string, EncodedSide>>;
}

/** Where each text field's index sits in an encoded attempt, and each flag's bit. */
const TEXT_AT = Object.fromEntries(TEXT_FIELDS.map((field, i) => [field, 3 + i])) as Record<
  (typeof TEXT_FIELDS)[number],
  number
>;
const BIT = Object.fromEntries(FLAGS.map((flag, bit) => [flag, 1 << bit])) as Record<(typeof FLAGS)[number], number>;

/*
 * Encoding runs for every partition a fold touches, over its whole tail (a live pair's fold adds one attempt to ~150
 * kept), and so does decoding where the folder has not kept the state decoded (storm-state-cache.ts): plain loops
 * and one object literal per attempt, no closure or spread per field, so every decoded attempt has the same shape.
 * On a tail of 146 (10 KB filed), CPU µs per call: decode 105 -> 70, encode 65 -> 57, of which JSON.parse and
 * JSON.stringify are 37 and 30.
 */
export function encodeStormState(state: PartitionStormState): string {
  const texts: string[] = [];
  const index = new Map<string, number>();
  const textIndex = (text: string | null): number => {
    if (text === null) return -1;
    let at = index.get(text);
    if (at === undefined) {
      at = texts.length;
      texts.push(text);
      index.set(text, at);
    }
    return at;
  };
  const sides: EncodedState['sides'] = {};
  for (const [side, saved] of Object.entries(state.sides)) {
    if (saved === undefined) continue;
    const tail = new Array<EncodedFact>(saved.tail.length);
    for (let n = 0; n < saved.tail.length; n++) tail[n] = encodeFact(saved.tail[n] as TailFact, textIndex);
    sides[side] = { ...saved, tail };
  }
  const encoded: EncodedState = { ...state, texts, sides };
  return JSON.stringify(encoded);
}

/**
 * One attempt as `EncodedFact`, compiled from FLAGS and TEXT_FIELDS: a loop of `fact[field]` is one keyed load site
 * for nine flags and ten texts, which V8 cannot specialise (megamorphic), and growing the array by push cost besides;
 * compiled, each is a plain property read into an array literal (1,000 tails of 40 attempts: 34 -> 25 µs an encode,
 * the same text). The names are the lists' own field identifiers, never input.
 */
const encodeFact = new Function(
  'fact',
  'textIndex',
  `return [fact.id, fact.ts, ${FLAGS.map((flag, bit) => `(fact.${flag} === true ? ${1 << bit} : 0)`).join(' | ')}, ${TEXT_FIELDS.map((field) => `textIndex(fact.${field})`).join(', ')}];`,
) as (fact: TailFact, textIndex: (text: string | null) => number) => EncodedFact;

/** The state filed by `encodeStormState`; null for none, or one of an earlier definition (to be replayed). */
export function decodeStormState(text: string | null): PartitionStormState | null {
  if (text === null) return null;
  const encoded = JSON.parse(text) as Partial<EncodedState>;
  if (encoded.version !== 2 || !Array.isArray(encoded.texts)) return null;
  const texts = encoded.texts;
  const sides: PartitionStormState['sides'] = {};
  for (const [side, saved] of Object.entries(encoded.sides ?? {})) {
    if (saved === undefined || (side !== 'client' && side !== 'server')) continue;
    const tail = new Array<TailFact>(saved.tail.length);
    for (let n = 0; n < saved.tail.length; n++) tail[n] = decodeFact(saved.tail[n] as EncodedFact, texts);
    sides[side] = { ...saved, tail };
  }
  const { texts: _texts, sides: _sides, ...rest } = encoded as EncodedState;
  return { ...rest, sides };
}

function decodeFact(row: EncodedFact, texts: readonly string[]): TailFact {
  const text = (field: (typeof TEXT_FIELDS)[number]) => textOf(row, texts, TEXT_AT[field]);
  const flags = row[2];
  const fact: TailFact = {
    id: row[0],
    ts: row[1],
    side: text('side') as StormFact['side'],
    bucket: text('bucket') as StormFact['bucket'],
    kind: text('kind') as string,
    key: text('key') as string,
    endpoint: text('endpoint') as string,
    endpointTarget: text('endpointTarget') as string,
    methodTarget: text('methodTarget'),
    probes: text('probes'),
    what: text('what') as string,
    connectLabel: text('connectLabel') as string,
    avoidable: (flags & BIT.avoidable) !== 0,
    undeclared: (flags & BIT.undeclared) !== 0,
    connect: (flags & BIT.connect) !== 0,
    stream: (flags & BIT.stream) !== 0,
    continuation: (flags & BIT.continuation) !== 0,
    pending: (flags & BIT.pending) !== 0,
    eraMismatch: (flags & BIT.eraMismatch) !== 0,
  };
  // Kept only when set, as the tracker writes them.
  if ((flags & BIT.inProbe) !== 0) fact.inProbe = true;
  if ((flags & BIT.passed) !== 0) fact.passed = true;
  return fact;
}

function textOf(row: EncodedFact, texts: readonly string[], position: number): string | null {
  const at = (row[position] as number | undefined) ?? -1;
  return at === -1 ? null : (texts[at] ?? null);
}
