import { describe, expect, it } from 'vitest';
import { analysisEvent, at, randomTrace, seed000, shuffled } from './fixtures.ts';
import { byTimeOrder, partitionKey, replayGate } from './gate.ts';
import {
  type CheckpointStart,
  continuePartitions,
  finishReplay,
  type GateChanges,
  type GatePlan,
  keysUsed,
  noChanges,
  planCheckpoint,
  planPartitions,
  replayPartition,
  type SavedCheckpoint,
  type SavedPartition,
  type StoredEvent,
  stepCheckpoint,
  stepOn,
} from './gate-step.ts';
import { gateKeysOf } from './request-key.ts';
import { byStormOrder, type StormSummary } from './storm-model.ts';
import { encodeStormState } from './storm-state-codec.ts';
import { createStormState } from './storm-tracker.ts';
import { detectStorms } from './storms.ts';
import type { AnalysisEvent } from './types.ts';

/**
 * A store in memory, written as api/services/gate-maintenance.ts writes the database: what the step is handed is
 * read from it, what the step answers is applied to it. Events are stored needed, as ingest stores them.
 */
class MemoryStore {
  readonly events = new Map<string, StoredEvent>();
  readonly positions = new Map<string, SavedPartition>();
  readonly keys = new Map<string, string>();
  readonly storms = new Map<string, StormSummary>();
  /** Compaction's side (ADR 21): the packed events with their last verdicts, the checkpoints and their keys. */
  readonly packed = new Map<string, StoredEvent>();
  readonly checkpoints = new Map<string, SavedCheckpoint>();
  readonly checkpointKeys = new Map<string, string>();

  store(events: readonly AnalysisEvent[]): void {
    for (const event of events) this.events.set(event.id, { event, avoidable: false, reason: null, blockedBy: null });
  }

  eventsOf(pk: string): StoredEvent[] {
    // Shadowed records too, as the database's read of a partition: the replay clears their verdicts.
    return [...this.events.values()].filter(
      ({ event }) => event.client !== null && JSON.stringify([event.client, event.server]) === pk,
    );
  }

  apply(changes: GateChanges): void {
    for (const { eventId, avoidable, reason, blockedBy } of changes.verdicts) {
      const row = this.events.get(eventId);
      if (row === undefined) throw new Error(`a verdict for ${eventId}, never stored`);
      Object.assign(row, { avoidable, reason, blockedBy });
    }
    for (const { partition, client, server, kept } of changes.replayed) {
      for (const key of this.keys.keys()) if (key.startsWith(`${partition}\n`)) this.keys.delete(key);
      if (kept !== null) {
        for (const [key, state] of this.checkpointKeys) if (key.startsWith(`${partition}\n`)) this.keys.set(key, state);
      }
      for (const [id, storm] of this.storms) {
        if (storm.client !== client || storm.server !== server) continue;
        if (kept === null || (storm.firstTs >= kept.from && !kept.final.includes(id))) this.storms.delete(id);
      }
    }
    for (const { partition, key, state } of changes.keys) {
      if (state === null) this.keys.delete(`${partition}\n${key}`);
      else this.keys.set(`${partition}\n${key}`, state);
    }
    for (const row of changes.partitions) this.positions.set(row.partition, row);
    for (const { id } of changes.vanished) this.storms.delete(id);
    for (const storm of changes.storms.values()) this.storms.set(storm.id, storm);
  }

  /** A fold of `batch`: stored, planned, replayed or continued, written. */
  fold(batch: readonly AnalysisEvent[], mustReplay: ReadonlySet<string> = new Set()): GateChanges {
    this.store(batch);
    const plan = planPartitions(group(batch, mustReplay), this.positions, new Set(), mustReplay);
    const changes = noChanges();
    for (const pk of plan.replay) {
      const events = this.eventsOf(pk);
      finishReplay(replayPartition(pk, events, changes, this.checkpointOf(pk, events)), changes);
    }
    continuePartitions(plan.continuing, this.storedKeys(plan.continuing), changes);
    this.apply(changes);
    return changes;
  }

  storedKeys(continuing: GatePlan['continuing']): Map<string, string> {
    const stored = new Map<string, string>();
    for (const { saved, keys } of continuing) {
      for (const key of keys) {
        const state = this.keys.get(`${saved.partition}\n${key}`);
        if (state !== undefined) stored.set(key, state);
      }
    }
    return stored;
  }

  checkpointOf(pk: string, events: readonly StoredEvent[]): CheckpointStart | undefined {
    const saved = this.checkpoints.get(pk);
    if (saved === undefined) return undefined;
    return { saved, keys: this.keysOf(pk, keysUsed(events.map(({ event }) => event)), this.checkpointKeys) };
  }

  keysOf(pk: string, keys: Iterable<string>, from: ReadonlyMap<string, string>): Map<string, string> {
    const stored = new Map<string, string>();
    for (const key of keys) {
      const state = from.get(`${pk}\n${key}`);
      if (state !== undefined) stored.set(key, state);
    }
    return stored;
  }

  /**
   * Compaction: every event before `before` leaves the rows for a "block" of up to `rows` events of one server, in
   * time order, each block's partitions' checkpoints stepped through it as the swap does.
   */
  pack(before: number, rows: number): void {
    const old = [...this.events.values()].filter(({ event }) => event.ts < before);
    old.sort((a, b) => byTimeOrder(a.event, b.event));
    const servers = new Set(old.map(({ event }) => event.server));
    for (const server of servers) {
      for (const block of batches(
        old.filter(({ event }) => event.server === server),
        rows,
      )) {
        for (const [pk, events] of group(block.map(({ event }) => event))) {
          const step = planCheckpoint(pk, this.checkpoints.get(pk), events);
          if (step === null) continue;
          const stepped = stepCheckpoint(step, this.keysOf(pk, step.keys, this.checkpointKeys));
          this.checkpoints.set(pk, stepped.checkpoint);
          for (const { key, state } of stepped.keys) {
            if (state === null) this.checkpointKeys.delete(`${pk}\n${key}`);
            else this.checkpointKeys.set(`${pk}\n${key}`, state);
          }
        }
        for (const row of block) {
          this.events.delete(row.event.id);
          this.packed.set(row.event.id, row);
        }
      }
    }
  }

  verdicts(): Map<string, string> {
    const rows = [...this.packed.values(), ...this.events.values()];
    return new Map(rows.map((row) => [row.event.id, verdictWord(row)]));
  }

  stormList(): StormSummary[] {
    return [...this.storms.values()].sort(byStormOrder);
  }
}

function group(events: readonly AnalysisEvent[], mustReplay: ReadonlySet<string> = new Set()) {
  const groups = new Map<string, AnalysisEvent[]>();
  for (const event of events) {
    const pk = partitionKey(event);
    if (pk === null) continue;
    groups.set(pk, [...(groups.get(pk) ?? []), event]);
  }
  for (const pk of mustReplay) if (!groups.has(pk)) groups.set(pk, []);
  return groups;
}

/** A verdict in words: 'needed', or why avoidable and by which block. */
function verdictWord({ avoidable, reason, blockedBy }: Omit<StoredEvent, 'event'>): string {
  return avoidable ? `${reason ?? 'avoidable without reason'} (${blockedBy ?? 'no block'})` : 'needed';
}

/** What one replay over every event says: each event's verdict, and the storms. */
function once(events: readonly AnalysisEvent[]) {
  const verdicts = replayGate(events);
  return {
    verdicts: new Map(
      events.map((e) => {
        const { avoidable = false, reason = null, blockedBy = null } = verdicts.get(e.id) ?? {};
        return [e.id, verdictWord({ avoidable, reason, blockedBy })];
      }),
    ),
    storms: detectStorms(events, verdicts)
      .map(({ timeline: _timeline, ...storm }) => storm)
      .sort(byStormOrder),
  };
}

/** Events as the store hands them to the gate: in (ts, id) order, with no arrival order (db analysisEventOfRow). */
const asStored = (events: readonly AnalysisEvent[]) => events.map((e) => ({ ...e, seq: 0 }));

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

const PK = JSON.stringify(['agent-7', 'release-notes']);

/** A saved position of PK at `seconds` after the event `id`, with a storm state. */
function savedAt(seconds: number, id: string, fields: Partial<SavedPartition> = {}): SavedPartition {
  return {
    partition: PK,
    waitUntil: null,
    frontierTs: at(seconds),
    frontierId: id,
    storms: encodeStormState(createStormState('agent-7', 'release-notes')),
    ...fields,
  };
}

const plan = (events: AnalysisEvent[], saved: SavedPartition[], pending: string[] = [], mustReplay: string[] = []) =>
  planPartitions(
    group(events, new Set(mustReplay)),
    new Map(saved.map((row) => [row.partition, row])),
    new Set(pending),
    new Set(mustReplay),
  );

/** A refusal of an undeclared endpoint: every later attempt at it is avoidable. */
const refusal = (seconds: number) =>
  analysisEvent({ ts: at(seconds), seq: 0, httpPath: '/missing', httpStatus: 404, kind: 'not_declared' });

/** The verdict written for an attempt at an endpoint refused before. */
const blockedAfterRefusal = (e: AnalysisEvent) => ({
  eventId: e.id,
  ts: e.ts,
  server: e.server,
  avoidable: true,
  reason: 'after_refusal',
  blockedBy: 'endpoint',
});

/** Which way the plan sends each partition. */
const routes = (p: ReturnType<typeof plan>) => ({
  continuing: p.continuing.map((c) => c.saved.partition),
  replay: p.replay,
  deferred: p.deferred,
});

describe('the gate step, batch by batch', () => {
  it('equals one replay over all events, verdicts and storms, with the state kept between folds', () => {
    let storms = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const events = asStored(randomTrace(seed, 300));
      const expected = once(events);
      storms += expected.storms.length;
      for (const size of [1, 9, 300]) {
        const store = new MemoryStore();
        for (const batch of batches(events, size)) store.fold(batch);
        expect(store.verdicts(), `seed ${seed}, batches of ${size}`).toEqual(expected.verdicts);
        expect(store.stormList(), `seed ${seed}, batches of ${size}`).toEqual(expected.storms);
      }
    }
    expect(storms).toBeGreaterThan(30);
  });

  it('equals one replay when batches arrive out of time order (late events replay their partitions)', () => {
    let replays = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const events = asStored(randomTrace(seed, 200));
      const store = new MemoryStore();
      for (const batch of shuffled(batches(events, 20), seed)) replays += store.fold(batch).replayed.length;
      const expected = once(events);
      expect(store.verdicts(), `seed ${seed}`).toEqual(expected.verdicts);
      expect(store.stormList(), `seed ${seed}`).toEqual(expected.storms);
    }
    expect(replays).toBeGreaterThan(24);
  });

  it("keeps seed 000's verdicts when a proxy record is shadowed and its partition replayed", () => {
    const { prober, thirdClient } = seed000();
    const events = asStored([...prober, ...thirdClient]);
    const store = new MemoryStore();
    const [first = [], second = []] = batches(events, Math.ceil(events.length / 2));
    store.fold(first);
    // An avoidable record of the first batch is shadowed (uncounted): the replay must clear its verdict.
    const shadowed = [...store.events.values()].find((row) => row.avoidable);
    if (shadowed === undefined) throw new Error('no avoidable record to shadow');
    shadowed.event = { ...shadowed.event, counted: false };
    const pk = JSON.stringify([shadowed.event.client, shadowed.event.server]);
    const changes = store.fold(second, new Set([pk]));
    expect(changes.replayed.map((r) => r.partition)).toContain(pk);
    expect(store.events.get(shadowed.event.id)).toMatchObject({ avoidable: false, reason: null });
    // Its counts came off when it was shadowed: the verdict it loses moves no count.
    expect(changes.moved.map((m) => m.record.id)).not.toContain(shadowed.event.id);
    const now = [...store.events.values()].map(({ event }) => event);
    expect(store.verdicts()).toEqual(once(now).verdicts);
    expect(store.stormList()).toEqual(once(now).storms);
  });
});

describe('the gate step over packed events (ADR 21)', () => {
  /** Each trace folded up to its middle, packed before it, then the rest folded out of order and every pair replayed. */
  function packedMidway(seed: number, blockRows: number) {
    const events = asStored(randomTrace(seed, 300));
    const horizon = (events[150] as AnalysisEvent).ts;
    const store = new MemoryStore();
    for (const batch of batches(
      events.filter((e) => e.ts < horizon),
      9,
    ))
      store.fold(batch);
    store.pack(horizon, blockRows);
    let fromCheckpoint = 0;
    const count = (changes: GateChanges) => {
      fromCheckpoint += changes.replayed.filter((r) => r.kept !== null).length;
    };
    for (const batch of shuffled(
      batches(
        events.filter((e) => e.ts >= horizon),
        20,
      ),
      seed,
    ))
      count(store.fold(batch));
    count(store.fold([], new Set([...store.checkpoints.keys()])));
    return { events, store, fromCheckpoint };
  }

  it('replays from the checkpoint at the cold horizon: verdicts and storms as one replay over every event', () => {
    let fromCheckpoint = 0;
    let storms = 0;
    for (let seed = 1; seed <= 12; seed++) {
      for (const blockRows of [1, 7, 300]) {
        const run = packedMidway(seed, blockRows);
        const expected = once(run.events);
        expect(run.store.packed.size, `seed ${seed}`).toBeGreaterThan(100);
        expect(run.store.verdicts(), `seed ${seed}, blocks of ${blockRows}`).toEqual(expected.verdicts);
        expect(run.store.stormList(), `seed ${seed}, blocks of ${blockRows}`).toEqual(expected.storms);
        fromCheckpoint += run.fromCheckpoint;
        storms += expected.storms.length;
      }
    }
    expect(fromCheckpoint).toBeGreaterThan(72);
    expect(storms).toBeGreaterThan(90);
  });

  const transient = (seconds: number, key = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa') =>
    analysisEvent({ ts: at(seconds), seq: 0, identity: `release-notes:${key}`, httpStatus: 503, kind: 'unavailable' });

  /** Folded in order up to `horizon`, packed before it, then `rest` folded in `order`, and the pair replayed. */
  function foldPacked(events: AnalysisEvent[], horizon: number, rest: AnalysisEvent[][]) {
    const store = new MemoryStore();
    store.fold(events.filter((e) => e.ts < horizon));
    store.pack(horizon, 4);
    for (const batch of rest) store.fold(batch);
    store.fold([], new Set([PK]));
    return store;
  }

  it('keeps a storm final at the checkpoint that began after an attempt its tracker still holds', () => {
    // A transient loop every 30 s holds its first attempt in the tracker for ten minutes; a refused request retried
    // three times at 100-130 s makes a storm, final long before the horizon at 400 s.
    const loop = Array.from({ length: 21 }, (_, i) => transient(i * 30));
    const refused = [100, 110, 120, 130].map((seconds) =>
      analysisEvent({
        ts: at(seconds),
        seq: 0,
        identity: 'release-notes:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
        httpStatus: 400,
        rpcCode: -32602,
        kind: 'invalid_params',
      }),
    );
    const events = [...loop, ...refused];
    const store = foldPacked(events, at(400), [events.filter((e) => e.ts >= at(400))]);
    const expected = once(events).storms;
    expect(expected.map((storm) => storm.firstTs)).toContain(at(100));
    expect(store.stormList()).toEqual(expected);
  });

  it('drops a storm begun before the frontier that a late event after it unmakes', () => {
    // Three transient failures (packed), a fourth and a fifth past the budget: a storm from the first. A success
    // after the third arrives late, still within the budget: it ends the run, and no storm is left.
    const [late, ...events] = [transient(25), ...[0, 10, 20, 30, 40].map((seconds) => transient(seconds))];
    const success = { ...(late as AnalysisEvent), httpStatus: 200, kind: 'ok', bucket: 'ok' as const, rule: 'ok' };
    const live = new MemoryStore();
    live.fold(events);
    expect(live.stormList()).toHaveLength(1);
    const store = foldPacked(events, at(25), [events.filter((e) => e.ts >= at(25)), [success]]);
    expect(once([...events, success]).storms).toEqual([]);
    expect(store.stormList()).toEqual([]);
    expect(store.verdicts()).toEqual(once([...events, success]).verdicts);
  });

  it('leaves out of a checkpoint the events at or before its frontier, and moves it to the last one stepped', () => {
    const events = asStored(randomTrace(5, 80)).filter(
      (e) => partitionKey(e) === JSON.stringify(['agent-a', 'release-notes']),
    );
    const pk = partitionKey(events[0] as AnalysisEvent) ?? '';
    const checkpoint = (saved: SavedCheckpoint | undefined, some: AnalysisEvent[]) => {
      const step = planCheckpoint(pk, saved, some);
      return step === null ? null : stepCheckpoint(step, new Map()).checkpoint;
    };
    const first = checkpoint(undefined, events.slice(0, 20));
    if (first === null) throw new Error('no checkpoint');
    expect(first).toMatchObject({ frontierTs: events[19]?.ts, frontierId: events[19]?.id });
    // A late event packed into a block of its own: the checkpoint has moved past it.
    expect(planCheckpoint(pk, first, events.slice(5, 6))).toBeNull();
    const next = checkpoint(first, events.slice(10, 30));
    expect(next).toMatchObject({ frontierTs: events[29]?.ts, frontierId: events[29]?.id });
  });
});

describe('planPartitions', () => {
  const e = (seconds: number, fields: Partial<AnalysisEvent> = {}) =>
    analysisEvent({ ts: at(seconds), seq: 0, ...fields });

  it('replays a partition never seen', () => {
    expect(routes(plan([e(1)], []))).toEqual({ continuing: [], replay: [PK], deferred: [] });
  });

  it('continues a partition whose events all come after its frontier, and names the keys they use', () => {
    const events = [e(7, { rpcMethod: 'tools/list' }), e(5)];
    const p = plan(events, [savedAt(4, 'ev-x')]);
    expect(routes(p)).toEqual({ continuing: [PK], replay: [], deferred: [] });
    // In time order, whatever order they came in.
    expect(p.continuing[0]?.events.map((x) => x.ts)).toEqual([at(5), at(7)]);
    expect([...(p.continuing[0]?.keys ?? [])].sort()).toEqual([...new Set(events.flatMap(gateKeysOf))].sort());
  });

  it('replays a partition that receives an event before its frontier (a late event), by time, then by id', () => {
    expect(routes(plan([e(3), e(9)], [savedAt(4, 'ev-x')])).replay).toEqual([PK]);
    expect(routes(plan([e(4, { id: 'ev-a' })], [savedAt(4, 'ev-b')])).replay).toEqual([PK]);
    expect(routes(plan([e(4, { id: 'ev-c' })], [savedAt(4, 'ev-b')])).continuing).toEqual([PK]);
  });

  it('takes a reused id for a new event at a later time, and for the one already stepped at the same time', () => {
    // Logs number their records afresh on every start: the same id comes again later.
    expect(routes(plan([e(6, { id: 'ev-1' })], [savedAt(4, 'ev-1')])).continuing).toEqual([PK]);
    expect(routes(plan([e(4, { id: 'ev-1' })], [savedAt(4, 'ev-1')])).replay).toEqual([PK]);
  });

  it('replays a partition asked to, with or without events, and one whose storms were never built or are stale', () => {
    expect(routes(plan([], [savedAt(4, 'ev-x')], [], [PK])).replay).toEqual([PK]);
    expect(routes(plan([e(9)], [savedAt(4, 'ev-x')], [], [PK])).replay).toEqual([PK]);
    expect(routes(plan([e(9)], [savedAt(4, 'ev-x', { storms: null })])).replay).toEqual([PK]);
    expect(routes(plan([e(9)], [savedAt(4, 'ev-x', { storms: '{"version":1}' })])).replay).toEqual([PK]);
  });

  it('leaves a partition whose replay is due to that replay, even when asked to replay it', () => {
    expect(routes(plan([e(9)], [savedAt(4, 'ev-x')], [PK], [PK]))).toEqual({
      continuing: [],
      replay: [],
      deferred: [PK],
    });
  });

  it('plans nothing for an empty batch, and a step over nothing changes nothing', () => {
    expect(routes(plan([], [savedAt(4, 'ev-x')]))).toEqual({ continuing: [], replay: [], deferred: [] });
    expect(continuePartitions([], new Map())).toEqual(noChanges());
  });
});

describe('continuePartitions', () => {
  it('writes only the avoidable verdicts, moves their counts from needed, and files the new frontier', () => {
    const store = new MemoryStore();
    const first = refusal(0);
    store.fold([first]);
    expect(store.positions.get(PK)).toMatchObject({ frontierTs: at(0), frontierId: first.id });
    const [again, other] = [refusal(1), analysisEvent({ ts: at(2), seq: 0 })];
    const changes = store.fold([again, other]);
    expect(changes.replayed).toEqual([]);
    expect(changes.verdicts).toEqual([blockedAfterRefusal(again)]);
    expect(changes.moved).toEqual([
      { record: again, before: { avoidable: 0, reason: null }, after: { avoidable: 1, reason: 'after_refusal' } },
    ]);
    expect(changes.partitions).toMatchObject([{ partition: PK, frontierTs: at(2), frontierId: other.id }]);
    // The refusal's block is read, not written again: nothing about the keys changed.
    expect(changes.keys).toEqual([]);
  });

  it('drops a key that holds nothing any more, and carries the throttle on', () => {
    const store = new MemoryStore();
    const failure = analysisEvent({ ts: at(0), seq: 0, httpStatus: 503, kind: 'unavailable' });
    const throttle = analysisEvent({
      ts: at(1),
      seq: 0,
      httpPath: '/other',
      httpStatus: 429,
      kind: 'rate_limited',
      waitUntil: at(60),
    });
    store.fold([failure, throttle]);
    expect(store.positions.get(PK)?.waitUntil).toBe(at(60));
    // The transient run of the failure's key is open: its state is held under the request key.
    const [held] = [...store.keys.keys()].filter((k) => k.endsWith(gateKeysOf(failure)[0] ?? ''));
    expect(held).toBeDefined();
    const success = analysisEvent({ ts: at(70), seq: 0 });
    const changes = store.fold([success]);
    expect(changes.keys).toEqual([{ partition: PK, key: gateKeysOf(failure)[0], state: null }]);
    expect(store.positions.get(PK)?.waitUntil).toBeNull();
  });

  it('closes a storm the data no longer make, and hands a storm out as final once its partition moved past it', () => {
    const store = new MemoryStore();
    const probe = (seconds: number, httpPath: string) =>
      analysisEvent({ ts: at(seconds), seq: 0, httpPath, httpStatus: 404, kind: 'not_declared' });
    store.fold([probe(0, '/a'), probe(1, '/a'), probe(2, '/a')]);
    const [loop] = store.stormList();
    expect(loop?.kind).toBe('retry_loop');
    // A second path inside the probe window makes the same attempts a probe storm: the loop's row is closed.
    const second = store.fold([probe(3, '/b')]);
    expect(second.vanished).toEqual([{ id: loop?.id, server: 'release-notes' }]);
    expect(store.stormList().map((s) => [s.kind, s.attempts])).toEqual([['probe_storm', 4]]);
    // Past the window the probe storm is final: written once more, and no longer shown at the next flush.
    const third = store.fold([probe(400, '/c')]);
    expect([...third.storms.values()].map((s) => s.kind)).toEqual(['probe_storm']);
    expect(store.fold([probe(401, '/d')]).vanished).toEqual([]);
  });
});

describe('replayPartition', () => {
  it('writes a verdict whose reason or block changed, and moves the count from the old reason to the new', () => {
    const [first, again] = [refusal(0), refusal(1)];
    const changes = noChanges();
    const stale = { avoidable: true, reason: 'past_transient_budget', blockedBy: 'key' };
    const replay = replayPartition(
      PK,
      [
        { event: again, ...stale },
        { event: first, avoidable: false, reason: null, blockedBy: null },
      ],
      changes,
    );
    finishReplay(replay, changes);
    // The refusal's stored verdict stands: only the other is written.
    expect(changes.verdicts).toEqual([blockedAfterRefusal(again)]);
    expect(changes.moved).toEqual([
      {
        record: again,
        before: { avoidable: 1, reason: 'past_transient_budget' },
        after: { avoidable: 1, reason: 'after_refusal' },
      },
    ]);
    expect(changes.replayed).toEqual([{ partition: PK, client: 'agent-7', server: 'release-notes', kept: null }]);
    expect(changes.partitions).toMatchObject([{ partition: PK, frontierTs: at(1), frontierId: again.id }]);
  });
});

describe('a replay behind the commit', () => {
  it('steps on events folded since it read, and is stale when one of them comes before its last', () => {
    const events = asStored(randomTrace(3, 120)).filter(
      (e) => partitionKey(e) === JSON.stringify(['agent-a', 'release-notes']),
    );
    const pk = partitionKey(events[0] as AnalysisEvent) ?? '';
    const stored = (list: readonly AnalysisEvent[]) =>
      list.map((event): StoredEvent => ({ event, avoidable: false, reason: null, blockedBy: null }));
    const [read, since] = [events.slice(0, 30), events.slice(30)];
    const changes = noChanges();
    const replay = replayPartition(pk, stored(read), changes);
    expect(stepOn(replay, stored(since), changes)).toBe(true);
    finishReplay(replay, changes);
    const store = new MemoryStore();
    store.store(events);
    store.apply(changes);
    expect(store.verdicts()).toEqual(once(events).verdicts);
    expect(store.stormList()).toEqual(once(events).storms);
    // Stale: an event earlier than the replay's last was folded meanwhile; nothing is stepped.
    const late = noChanges();
    const stale = replayPartition(pk, stored(events.slice(1)), late);
    const before = late.verdicts.length;
    expect(stepOn(stale, stored(events.slice(0, 1)), late)).toBe(false);
    expect(late.verdicts.length).toBe(before);
  });
});
