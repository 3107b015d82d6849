import { describe, expect, it } from 'vitest';
import { StormStateCache } from './storm-state-cache.ts';
import { decodeStormState, encodeStormState } from './storm-state-codec.ts';
import { createStormState, type PartitionStormState } from './storm-tracker.ts';

const PK = JSON.stringify(['agent-7', 'docs']);

/** A state whose `latest` tells it apart, and its text as filed. */
function filed(latest: number): { state: PartitionStormState; text: string } {
  const state = createStormState('agent-7', 'docs');
  state.latest = latest;
  return { state, text: encodeStormState(state) };
}

describe('the storm states kept between folds', () => {
  it('hands back the kept state only for the very text it was filed as, and only once', () => {
    const cache = new StormStateCache(2 ** 20);
    const mine = filed(1);
    cache.keep(PK, mine.text, mine.state);
    expect(cache.take(PK, mine.text)).toBe(mine.state);
    // Taken out: its caller steps it, so a second read decodes.
    const again = cache.take(PK, mine.text);
    expect(again).not.toBe(mine.state);
    expect(again).toEqual(decodeStormState(mine.text));
  });

  it('decodes what the store holds when another server, a replay or a rolled-back fold filed another state', () => {
    const cache = new StormStateCache(2 ** 20);
    const mine = filed(1);
    cache.keep(PK, mine.text, mine.state);
    const theirs = filed(2);
    const taken = cache.take(PK, theirs.text);
    expect(taken).not.toBe(mine.state);
    expect(taken?.latest).toBe(2);
    // Nor is the stale one kept for later.
    expect(cache.take(PK, mine.text)).not.toBe(mine.state);
    expect(cache.take(PK, null)).toBeNull();
  });

  it('keeps no more than its bytes, and gives the room of a pair idle for long to another', () => {
    let now = 0;
    const one = filed(1);
    // Room for one state (3 bytes a character: the text and the state decoded from it).
    const cache = new StormStateCache(one.text.length * 3, 1_000, () => now);
    cache.keep('a', one.text, one.state);
    const other = filed(2);
    cache.keep('b', other.text, other.state);
    expect(cache.take('b', other.text)).not.toBe(other.state);
    now = 1_000;
    cache.keep('b', other.text, other.state);
    expect(cache.take('a', one.text)).not.toBe(one.state);
    expect(cache.take('b', other.text)).toBe(other.state);
  });
});
