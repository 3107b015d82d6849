import { describe, expect, it } from 'vitest';
import { queryClient } from './query-client.ts';
import { shareEqual } from './structural-sharing.ts';

/** A name, held in a variable: `.__proto__` in code is the accessor, not a member. */
const PROTO = '__proto__';

/** A /summary answer as the browser reads it: JSON.parse makes `__proto__` an own member. */
function summary(protoTotal: number, constructorTotal = 1) {
  return JSON.parse(
    `{"overall":{"total":${protoTotal + constructorTotal + 1}},"servers":{"__proto__":{"total":${protoTotal}},` +
      `"constructor":{"total":${constructorTotal}},"plain":{"total":1}},"clients":{"toString":{"total":2}}}`,
  );
}

describe('structural sharing of answers keyed by names from logs', () => {
  it('keeps a changed `__proto__` server as an own key, and the record a plain one', () => {
    const next = shareEqual(summary(1), summary(5)) as ReturnType<typeof summary>;
    expect(Object.keys(next.servers)).toEqual(['__proto__', 'constructor', 'plain']);
    expect(Object.hasOwn(next.servers, '__proto__')).toBe(true);
    expect(next.servers[PROTO]).toEqual({ total: 5 });
    expect(Object.getPrototypeOf(next.servers)).toBe(Object.prototype);
    // Nothing inherited from the `__proto__` server's counts.
    expect(Object.hasOwn(next.servers, 'total')).toBe(false);
    expect(next.servers.total).toBeUndefined();
  });

  it('shares what did not change, and returns the previous answer when nothing did', () => {
    const prev = summary(1);
    expect(shareEqual(prev, summary(1))).toBe(prev);
    const next = shareEqual(prev, summary(5)) as ReturnType<typeof summary>;
    expect(next).not.toBe(prev);
    expect(next.servers.constructor).toBe(prev.servers.constructor);
    expect(next.servers.plain).toBe(prev.servers.plain);
    expect(next.clients).toBe(prev.clients);
    expect(next.servers[PROTO]).not.toBe(prev.servers[PROTO]);
  });

  it('sees a name appear or go, even one every object inherits', () => {
    const without = JSON.parse('{"servers":{"plain":{"total":1}}}');
    const withConstructor = JSON.parse('{"servers":{"plain":{"total":1},"constructor":{"total":1}}}');
    const grown = shareEqual(without, withConstructor) as typeof withConstructor;
    expect(grown).not.toBe(without);
    expect(Object.keys(grown.servers)).toEqual(['plain', 'constructor']);
    expect(grown.servers.constructor).toEqual({ total: 1 });
    const shrunk = shareEqual(withConstructor, without) as typeof without;
    expect(Object.keys(shrunk.servers)).toEqual(['plain']);
    expect(Object.hasOwn(shrunk.servers, 'constructor')).toBe(false);
    // A record whose only member is `__proto__` is not "the same" as an empty one.
    const empty = JSON.parse('{"servers":{}}');
    const proto = JSON.parse('{"servers":{"__proto__":{"total":1}}}');
    expect(Object.keys((shareEqual(empty, proto) as typeof proto).servers)).toEqual(['__proto__']);
  });

  it('shares arrays item by item and takes anything else from the new answer', () => {
    const prev = JSON.parse('{"storms":[{"server":"__proto__"},{"server":"a"}]}');
    const next = shareEqual(prev, JSON.parse('{"storms":[{"server":"__proto__"},{"server":"b"}]}')) as typeof prev;
    expect(next.storms[0]).toBe(prev.storms[0]);
    expect(next.storms[1]).toEqual({ server: 'b' });
    expect(shareEqual(prev, JSON.parse('{"storms":[{"server":"__proto__"}]}'))).not.toBe(prev);
    expect(shareEqual({ a: 1 }, null)).toBeNull();
    expect(shareEqual([1], { 0: 1 })).toEqual({ 0: 1 });
  });

  it('is what the dashboard query client shares refetched answers with', () => {
    const key = ['structural-sharing-test'];
    queryClient.setQueryData(key, summary(1));
    queryClient.setQueryData(key, summary(7));
    const data = queryClient.getQueryData<ReturnType<typeof summary>>(key);
    queryClient.removeQueries({ queryKey: key });
    expect(Object.keys(data?.servers ?? {})).toEqual(['__proto__', 'constructor', 'plain']);
    expect(data?.servers[PROTO]).toEqual({ total: 7 });
  });
});
