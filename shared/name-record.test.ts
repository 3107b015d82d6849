import { describe, expect, it } from 'vitest';
import { type NameRecord, nameRecord, nameRecordOf } from './name-record.ts';

describe('NameRecord', () => {
  it('keeps every name a key: nothing inherited, __proto__ stored as data', () => {
    const counts = nameRecord<number>();
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      counts[name] = (counts[name] ?? 0) + 1;
    expect(JSON.parse(JSON.stringify(counts))).toEqual(
      Object.fromEntries(['__proto__', 'constructor', 'toString', 'hasOwnProperty'].map((n) => [n, 1])),
    );
    expect(nameRecord<number>().valueOf).toBeUndefined();
    expect(Object.getPrototypeOf(nameRecordOf([['__proto__', 1]]))).toBeNull();
    expect(Object.keys(nameRecordOf([['__proto__', 1]]))).toEqual(['__proto__']);
  });

  it('cannot be filled with a plain object literal (tsc checks this file)', () => {
    // @ts-expect-error a plain `{}` inherits Object.prototype's members: only nameRecord() makes a NameRecord
    const plain: NameRecord<number> = {};
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
  });
});
