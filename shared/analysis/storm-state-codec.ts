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
    const tail = saved.tail.map((fact): EncodedFact => {
      let flags = 0;
      FLAGS.forEach((flag, bit) => {
        if (fact[flag] === true) flags |= 1 << bit;
      });
      return [fact.id, fact.ts, flags, ...TEXT_FIELDS.map((field) => textIndex(fact[field]))];
    });
    sides[side] = { ...saved, tail };
  }
  const encoded: EncodedState = { ...state, texts, sides };
  return JSON.stringify(encoded);
}

/** The state filed by `encodeStormState`; null for none, or one of an earlier definition (to be replayed). */
export function decodeStormState(text: string | null): PartitionStormState | null {
  if (text === null) return null;
  const encoded = JSON.parse(text) as Partial<EncodedState>;
  if (encoded.version !== 2 || !Array.isArray(encoded.texts)) return null;
  const texts = encoded.texts;
  const sides: PartitionStormState['sides'] = {};
  for (const [side, saved] of Object.entries(encoded.sides ?? {})) {
    if (saved === undefined || (side !== 'client' && side !== 'server')) continue;
    const tail = saved.tail.map(([id, ts, flags, ...fields]) => {
      const fact: Record<string, unknown> = { id, ts };
      TEXT_FIELDS.forEach((field, i) => {
        const at = fields[i] ?? -1;
        fact[field] = at === -1 ? null : texts[at];
      });
      FLAGS.forEach((flag, bit) => {
        const set = (flags & (1 << bit)) !== 0;
        if (flag === 'inProbe' || flag === 'passed') {
          if (set) fact[flag] = true;
        } else fact[flag] = set;
      });
      return fact as unknown as TailFact;
    });
    sides[side] = { ...saved, tail };
  }
  const { texts: _texts, sides: _sides, ...rest } = encoded as EncodedState;
  return { ...rest, sides };
}
