declare const keyedByNames: unique symbol;

/**
 * A record keyed by names taken from logs (servers, clients, kinds, reasons...), for objects the API serialises as
 * JSON. Only `nameRecord()` makes one: it has no prototype, so every name is just a key: `__proto__` is stored rather
 * than run as the prototype setter, and a name nobody stored (`constructor`, `toString`) reads as undefined rather
 * than an inherited function. The brand is what makes that hold: a plain `{}` is no NameRecord, so a field declared
 * as one cannot be filled with a literal (the hole of issue 39, item 2). JSON.stringify writes it like any object.
 * State that is never serialised is better kept in a Map.
 */
export type NameRecord<T> = Record<string, T> & { readonly [keyedByNames]: true };

export function nameRecord<T>(): NameRecord<T> {
  return Object.create(null) as NameRecord<T>;
}

/** A record of `entries` keyed by their names, as `Object.fromEntries` but without a prototype. */
export function nameRecordOf<T>(entries: Iterable<readonly [string, T]>): NameRecord<T> {
  const record = nameRecord<T>();
  for (const [name, value] of entries) record[name] = value;
  return record;
}
