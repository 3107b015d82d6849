import { describe, expect, it } from 'vitest';
import { addConduct, clientConduct, conductReport, emptyConduct } from './conduct.ts';
import { analysisEvent, shuffled } from './fixtures.ts';
import type { GateReason, GateVerdict } from './gate-types.ts';
import type { AnalysisEvent } from './types.ts';

/** A verdict as the gate replay would give it; the key does not matter to conduct. */
function verdict(event: AnalysisEvent, reason: GateReason | null): GateVerdict {
  return { id: event.id, key: `${event.client}|${event.server}`, avoidable: reason !== null, reason, blockedBy: null };
}

function undeclared(client: string, server: string, discoveryRead: boolean | null): AnalysisEvent {
  return analysisEvent({
    client,
    server,
    discoveryRead,
    httpPath: '/mcp/sse',
    httpStatus: 404,
    bucket: 'refusal',
    kind: 'not_declared',
    rule: 'http.404.not_declared',
  });
}

/** A hand-built world: three clients, the gate's verdicts written out per event. */
function world(): { events: AnalysisEvent[]; verdicts: Map<string, GateVerdict> } {
  const probe = [0, 1, 2, 3].map(() => undeclared('prober', 'files', false));
  const readFirst = undeclared('careful', 'files', true);
  const unknownRead = undeclared('careful', 'files', null);
  const throttled = [0, 1, 2].map(() => analysisEvent({ client: 'hasty', server: 'search' }));
  const budget = [0, 1].map(() => analysisEvent({ client: 'hasty', server: 'files' }));
  const ambiguous = analysisEvent({ client: 'hasty', server: 'search' });
  const shadow = analysisEvent({ source: 'proxy', client: 'prober', server: 'files', counted: false });
  const anonymous = analysisEvent({ source: 'proxy', client: null, server: 'files' });
  const verdicts = [
    ...probe.map((e, i) => verdict(e, i === 0 ? null : 'after_refusal')),
    verdict(readFirst, null),
    ...throttled.map((e) => verdict(e, 'before_retry_after')),
    ...budget.map((e) => verdict(e, 'past_transient_budget')),
    verdict(ambiguous, 'identical_after_ambiguous'),
    verdict(shadow, 'after_refusal'),
    verdict(anonymous, 'after_refusal'),
  ];
  const events = [...probe, readFirst, unknownRead, ...throttled, ...budget, ambiguous, shadow, anonymous];
  return { events, verdicts: new Map(verdicts.map((v) => [v.id, v])) };
}

describe('clientConduct', () => {
  it('counts each finding per client from the verdict map', () => {
    const { events, verdicts } = world();
    expect(clientConduct(events, verdicts)).toEqual([
      {
        client: 'hasty',
        requests: 6,
        avoidable: 6,
        probedWithoutDiscovery: 0,
        retriedAfterRefusal: 0,
        retriedBeforeRetryAfter: 3,
        retriedPastBudget: 2,
        identicalAfterAmbiguous: 1,
        hurtsMost: [
          { server: 'search', avoidable: 4 },
          { server: 'files', avoidable: 2 },
        ],
      },
      {
        client: 'prober',
        requests: 4,
        avoidable: 3,
        probedWithoutDiscovery: 4,
        retriedAfterRefusal: 3,
        retriedBeforeRetryAfter: 0,
        retriedPastBudget: 0,
        identicalAfterAmbiguous: 0,
        hurtsMost: [{ server: 'files', avoidable: 3 }],
      },
      {
        client: 'careful',
        requests: 2,
        avoidable: 0,
        probedWithoutDiscovery: 0,
        retriedAfterRefusal: 0,
        retriedBeforeRetryAfter: 0,
        retriedPastBudget: 0,
        identicalAfterAmbiguous: 0,
        hurtsMost: [],
      },
    ]);
  });

  it('keeps only the top n servers, most avoidable first', () => {
    const events = ['a', 'b', 'b', 'c', 'c', 'c'].map((server) => analysisEvent({ client: 'x', server }));
    const verdicts = new Map(events.map((e) => [e.id, verdict(e, 'after_refusal')]));
    expect(clientConduct(events, verdicts, 2)[0]?.hurtsMost).toEqual([
      { server: 'c', avoidable: 3 },
      { server: 'b', avoidable: 2 },
    ]);
  });

  it('treats an event without a verdict as needed', () => {
    const event = analysisEvent({ client: 'x' });
    expect(clientConduct([event], new Map())[0]).toMatchObject({ requests: 1, avoidable: 0 });
  });
});

describe('conduct accumulator', () => {
  it('folds events in any order to the same counts', () => {
    const { events, verdicts } = world();
    const fold = (list: readonly AnalysisEvent[]) => {
      const acc = emptyConduct();
      for (const event of list) addConduct(acc, event, verdicts.get(event.id));
      return acc;
    };
    const whole = fold(events);
    expect(fold(shuffled(events, 7))).toEqual(whole);
    expect(conductReport(whole)).toEqual(clientConduct(events, verdicts));
  });

  it('takes any client or server name as a plain key', () => {
    const acc = emptyConduct();
    const event = analysisEvent({ client: 'constructor', server: '__proto__' });
    addConduct(acc, event, verdict(event, 'after_refusal'));
    addConduct(acc, event, verdict(event, 'after_refusal'));
    expect(conductReport(acc)[0]).toMatchObject({
      client: 'constructor',
      avoidable: 2,
      hurtsMost: [{ server: '__proto__', avoidable: 2 }],
    });
  });
});
