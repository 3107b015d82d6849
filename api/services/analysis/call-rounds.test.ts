import { describe, expect, it } from 'vitest';
import type { RoundRow } from '../../../db/queries/call-rounds.ts';
import { callAround, ROUND_GAP_MS } from './call-rounds.ts';

const T = Date.parse('2026-12-06T01:49:40Z');
let seq = 0;
function row(id: string, at: number, bucket: string, continuation = false): RoundRow {
  seq++;
  return {
    eventId: id,
    seq,
    ts: T + at,
    bucket,
    kind: bucket === 'pending' ? 'input_required' : bucket,
    continuation: continuation ? 1 : 0,
  };
}

/** The call of `self` among `rows` (in time order), as the event view reads it: ids and which round it is. */
function callIn(rows: RoundRow[], self: string) {
  const at = rows.findIndex((r) => r.eventId === self);
  const call = callAround(rows[at] as RoundRow, rows.slice(0, at).reverse(), rows.slice(at + 1));
  return call === null ? null : { ids: call.rounds.map((r) => r.id), round: call.round, firstInLog: call.firstInLog };
}

describe('the MRTR call of a round', () => {
  it('holds every round from the asking send to the last continuation, whichever round is read', () => {
    const rows = [
      row('a', 0, 'pending'),
      row('b', 40, 'pending', true),
      row('c', 900, 'ok', true),
      row('d', 5_000, 'ok'),
    ];
    for (const [id, round] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const) {
      expect(callIn(rows, id)).toEqual({ ids: ['a', 'b', 'c'], round, firstInLog: true });
    }
    // The next send of the same request is a call of its own, and no MRTR round: it neither asked nor continued.
    expect(callIn(rows, 'd')).toBeNull();
  });

  it('starts a new call at a send without the answers: an ignored input request is no round of the one before', () => {
    const rows = [row('a', 0, 'pending'), row('b', 200, 'pending'), row('c', 400, 'ok', true)];
    expect(callIn(rows, 'a')).toEqual({ ids: ['a'], round: 1, firstInLog: true });
    expect(callIn(rows, 'c')).toEqual({ ids: ['b', 'c'], round: 2, firstInLog: true });
  });

  it('leaves out a continuation further than the gap from the round before, which then starts no call in the log', () => {
    const rows = [row('a', 0, 'pending'), row('b', ROUND_GAP_MS + 1, 'ok', true)];
    expect(callIn(rows, 'a')).toEqual({ ids: ['a'], round: 1, firstInLog: true });
    expect(callIn(rows, 'b')).toEqual({ ids: ['b'], round: 1, firstInLog: false });
    const near = [row('a', 0, 'pending'), row('b', ROUND_GAP_MS, 'ok', true)];
    expect(callIn(near, 'b')).toEqual({ ids: ['a', 'b'], round: 2, firstInLog: true });
  });

  it('is none for a send alone that did not ask for input', () => {
    expect(callIn([row('a', 0, 'refusal')], 'a')).toBeNull();
  });
});
