/**
 * A record keyed by names taken from logs (servers, clients, kinds, reasons...), for objects the API serialises as
 * JSON. It has no prototype, so every name is just a key: `__proto__` is stored rather than run as the prototype
 * setter, and a name nobody stored (`constructor`, `toString`) reads as undefined rather than an inherited function.
 * JSON.stringify writes it like any object. State that is never serialised is better kept in a Map.
 */
export function nameRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
