type Json = Record<string, unknown>;

/**
 * TanStack Query's structural sharing, safe for records keyed by names from logs. Its own (`replaceEqualDeep`)
 * builds each changed object with `copy[key] = value`: for a server, client, kind or reason named `__proto__`
 * (JSON.parse makes it an own member) that runs the prototype setter instead, so the name drops out of
 * `Object.keys` and its counts turn into inherited members of the record. This does the same sharing (the parts of
 * `next` equal to `prev` are replaced by `prev`'s, and `prev` itself is returned when nothing changed) with
 * members defined, never assigned. For JSON data: arrays and plain objects are compared, anything else is taken
 * from `next`.
 */
export function shareEqual(prev: unknown, next: unknown): unknown {
  return share(prev, next, 0);
}

function share(a: unknown, b: unknown, depth: number): unknown {
  if (a === b) return a;
  // As TanStack's: past this depth the data is taken as it is rather than walked.
  if (depth > 500) return b;
  if (Array.isArray(a) && Array.isArray(b)) {
    let same = a.length === b.length;
    const copy = b.map((item, index) => {
      const shared = index < a.length ? share(a[index], item, depth + 1) : item;
      if (shared !== a[index]) same = false;
      return shared;
    });
    return same ? a : copy;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const keys = Object.keys(b);
  let same = keys.length === Object.keys(a).length;
  const copy: Json = {};
  for (const key of keys) {
    // `a[key]` of a key `a` lacks would read its prototype's member (`__proto__`, `constructor`).
    const had = Object.hasOwn(a, key);
    const shared = had ? share(a[key], b[key], depth + 1) : b[key];
    if (!had || shared !== a[key]) same = false;
    Object.defineProperty(copy, key, { value: shared, enumerable: true, writable: true, configurable: true });
  }
  return same ? a : copy;
}

function isPlainObject(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
