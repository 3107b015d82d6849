import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonOrNull } from './canonical-json';

/** The IEEE 754 double with these 64 bits, so the RFC's Appendix B rows can be used exactly as printed. */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalJson numbers', () => {
  // RFC 8785 Appendix B, every finite row.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('writes the double 0x%s as %s (RFC 8785 Appendix B)', (hex, expected) => {
    expect(canonicalJson(double(hex))).toBe(expected);
  });

  // The same numbers as an encoder might have written them in JSON text.
  it.each([
    ['0', '0'],
    ['-0', '0'],
    ['-0.0e5', '0'],
    ['1e21', '1e+21'],
    ['1E+21', '1e+21'],
    ['1e20', '100000000000000000000'],
    ['1e-7', '1e-7'],
    ['0.0000001', '1e-7'],
    ['333333333.33333329', '333333333.3333333'],
    ['9007199254740992', '9007199254740992'],
    ['295147905179352830000', '295147905179352830000'],
    ['4.50', '4.5'],
    ['2e-3', '0.002'],
    ['0.000001', '0.000001'],
    ['1E30', '1e+30'],
    ['5e-324', '5e-324'],
    ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['0.000000000000000000000000001', '1e-27'],
    ['100', '100'],
    ['-12.50', '-12.5'],
  ])('writes JSON text %s as %s', (text, expected) => {
    expect(canonicalJson(JSON.parse(text))).toBe(expected);
  });

  // RFC 8785 Appendix B lists NaN and Infinity as errors, and section 3.2.2.3 says they must fail.
  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
  ])('refuses the double 0x%s (%s)', (hex) => {
    expect(() => canonicalJson(double(hex))).toThrow(TypeError);
  });

  it.each([NaN, Infinity, -Infinity])('refuses %s even inside a structure', (value) => {
    expect(() => canonicalJson({ a: [1, value] })).toThrow(/not a JSON number/);
  });
});

describe('canonicalJson strings', () => {
  it('writes the two-character escapes and lowercase \\u00xx for every other control character', () => {
    const controls = String.fromCharCode(...Array.from({ length: 0x20 }, (_, code) => code));
    expect(canonicalJson(controls)).toBe(
      String.raw`"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f` +
        String.raw`\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"`,
    );
  });

  it('escapes only the quote and the backslash among printable ASCII, and never the solidus', () => {
    expect(canonicalJson('a"b\\c/d')).toBe(String.raw`"a\"b\\c/d"`);
  });

  it('writes non-ASCII characters as themselves, DEL and U+2028 included', () => {
    expect(canonicalJson('\u007f\u0080é€\u2028\u{1F600}')).toBe('"\u007f\u0080é€\u2028\u{1F600}"');
  });

  it('writes an NFD string as its NFC form', () => {
    expect(canonicalJson('e\u0301')).toBe('"\u00e9"');
    expect(canonicalJson('Cafe\u0301 "x"')).toBe('"Caf\u00e9 \\"x\\""');
    // Hangul jamo compose too, so this is NFC and not merely a one-off table for accents.
    expect(canonicalJson('\u1112\u1161\u11ab')).toBe('"\ud55c"');
  });

  it('gives NFC and NFD spellings of one text the same output, as values and as member names', () => {
    const composed = JSON.parse('{"caf\\u00e9": ["\\u00e9t\\u00e9", {"r\\u00e9sum\\u00e9": 1}]}');
    const decomposed = JSON.parse('{"cafe\\u0301": ["e\\u0301te\\u0301", {"re\\u0301sume\\u0301": 1}]}');
    expect(JSON.stringify(composed)).not.toBe(JSON.stringify(decomposed));
    expect(canonicalJson(decomposed)).toBe(canonicalJson(composed));
    expect(canonicalJson(composed)).toBe('{"caf\u00e9":["\u00e9t\u00e9",{"r\u00e9sum\u00e9":1}]}');
  });

  it('normalises text that mixes Latin-1 with combining marks', () => {
    expect(canonicalJson('na\u00efve A\u030a')).toBe('"na\u00efve \u00c5"');
    expect(canonicalJson({ 'A\u030angstr\u00f6m': 1 })).toBe('{"\u00c5ngstr\u00f6m":1}');
  });

  it('relies on every pair of characters below U+0300 already being NFC (the fast path skips them)', () => {
    const changed: string[] = [];
    for (let a = 0; a < 0x300; a++) {
      for (let b = 0; b < 0x300; b++) {
        const pair = String.fromCharCode(a, b);
        if (pair.normalize('NFC') !== pair) changed.push(pair);
      }
    }
    expect(changed).toEqual([]);
  });

  it('refuses lone surrogates but keeps well-formed pairs (RFC 8785 section 3.2.2.2)', () => {
    expect(() => canonicalJson('a\ud800b')).toThrow(/lone surrogate/);
    expect(() => canonicalJson('\ude00')).toThrow(TypeError);
    expect(() => canonicalJson({ 'k\udbff': 1 })).toThrow(TypeError);
    expect(canonicalJson('\ud83d\ude00')).toBe('"\u{1F600}"');
  });
  it('answers null for a log value with no canonical form, and the canonical form of any other', () => {
    expect(canonicalJsonOrNull({ clientInfo: { name: 'harbor-\ud800agent' } })).toBeNull();
    let deep: unknown = 1;
    for (let i = 0; i < 1001; i++) deep = [deep];
    expect(canonicalJsonOrNull(deep)).toBeNull();
    expect(canonicalJsonOrNull({ b: 1, a: 'é' })).toBe(canonicalJson({ a: 'e\u0301', b: 1 }));
  });
});

describe('canonicalJson objects and arrays', () => {
  it('reproduces the RFC 8785 section 3.2.2 sample', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(canonicalJson(JSON.parse(input))).toBe(expected);
  });

  it('sorts member names by UTF-16 code unit, not by code point', () => {
    // By code point U+E000 and U+FFFD come before U+1F600; by UTF-16 unit its lead surrogate 0xD83D comes first.
    const value = { '\uFFFD': 3, '\uE000': 2, '\u{1F600}': 1, z: 0 };
    const byCodePoint = Object.keys(value).sort((a, b) => (a.codePointAt(0) ?? 0) - (b.codePointAt(0) ?? 0));
    expect(byCodePoint).toEqual(['z', '\uE000', '\uFFFD', '\u{1F600}']);
    expect(canonicalJson(value)).toBe('{"z":0,"\u{1F600}":1,"\uE000":2,"\uFFFD":3}');
  });

  it('sorts the same way in objects too big for the small-object sort', () => {
    const ascii = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const names = [...ascii, '\u{1F600}', '\uE000', '\uFFFD'];
    // Inserted in reverse, so nothing comes out right by keeping insertion order.
    const value = Object.fromEntries([...names].reverse().map((name) => [name, 0]));
    expect(Object.keys(JSON.parse(canonicalJson(value)))).toEqual(names);
    expect(canonicalJson(value)).toBe(`{${names.map((name) => `"${name}":0`).join(',')}}`);
  });

  it('sorts the RFC 8785 section 3.2.3 sample, with U+FB33 moved to its NFC form U+05D3 U+05BC', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    // Plain RFC 8785 would put U+FB33 last; NFC decomposes it (a composition exclusion), which sorts before U+20AC.
    const expected =
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u05d3\u05bc":"Hebrew Letter Dalet With Dagesh","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face"}';
    expect(canonicalJson(JSON.parse(input))).toBe(expected);
  });

  it('sorts integer-like names as strings, not in the engine property order', () => {
    expect(canonicalJson(JSON.parse('{"10":1,"9":2,"-1":3,"":4,"b":5,"a":6}'))).toBe(
      '{"":4,"-1":3,"10":1,"9":2,"a":6,"b":5}',
    );
  });

  it('sorts nested objects and keeps array order', () => {
    expect(canonicalJson({ b: [{ y: 1, x: 2 }, 3, [2, 1]], a: { d: null, c: true } })).toBe(
      '{"a":{"c":true,"d":null},"b":[{"x":2,"y":1},3,[2,1]]}',
    );
  });

  it('gives texts that differ only in member order and whitespace the same output', () => {
    const compact = '{"name":"search","arguments":{"q":"x","limit":10,"tags":["a","b"]}}';
    const spaced =
      '{\n  "arguments" : {\t"tags": [ "a" , "b" ],\r\n "limit": 1e1, "q": "x" },\n  "name": "search"\n}\n';
    expect(canonicalJson(JSON.parse(spaced))).toBe(canonicalJson(JSON.parse(compact)));
    expect(canonicalJson(JSON.parse(compact))).toBe(
      '{"arguments":{"limit":10,"q":"x","tags":["a","b"]},"name":"search"}',
    );
  });

  it('writes empty containers and literals', () => {
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson([null, true, false, ''])).toBe('[null,true,false,""]');
  });

  it('leaves out members whose value is undefined, as JSON.stringify does', () => {
    expect(canonicalJson({ b: undefined, a: 1, c: undefined })).toBe('{"a":1}');
    expect(canonicalJson({ a: undefined })).toBe('{}');
  });

  it('keeps a member named __proto__ that JSON.parse created', () => {
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":2}}'))).toBe('{"__proto__":{"x":2},"b":1}');
  });

  it('accepts objects without a prototype', () => {
    const bare: Record<string, unknown> = Object.create(null);
    bare.b = 2;
    bare.a = 1;
    expect(canonicalJson(bare)).toBe('{"a":1,"b":2}');
  });

  it('refuses two member names that become one under NFC', () => {
    expect(() => canonicalJson(JSON.parse('{"\\u00e9":1,"e\\u0301":2}'))).toThrow(/after NFC/);
    expect(() => canonicalJson(JSON.parse('{"e\\u0301":1,"\\u00e9":2}'))).toThrow(TypeError);
  });
});

describe('canonicalJson refuses values that are not JSON', () => {
  it.each<[string, unknown]>([
    ['top-level undefined', undefined],
    ['undefined in an array', [1, undefined]],
    ['an array hole', new Array<unknown>(2)],
    ['a function', { f: () => 1 }],
    ['a bigint', { n: 10n }],
    ['a symbol', [Symbol('s')]],
    ['a Date', { at: new Date(0) }],
    ['a Map', new Map([['a', 1]])],
  ])('%s', (_, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('refuses a cyclic structure with a TypeError, not a stack overflow', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });

  it('writes 1000 levels of nesting and refuses 1001', () => {
    const nest = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
    expect(canonicalJson(JSON.parse(nest(1000)))).toBe(nest(1000));
    expect(() => canonicalJson(JSON.parse(nest(1001)))).toThrow(/1000 levels/);
  });
});
