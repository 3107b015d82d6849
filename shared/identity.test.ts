import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';
import { identityPayload, requestIdentity, SAMPLING_IDENTITY_FIELDS, TOOLS_CALL_IDENTITY_FIELDS } from './identity';

/** The identity the spec defines, computed from a canonical text written out by hand. */
function expectedIdentity(server: string, canonical: string): string {
  return `${server}:${createHash('sha256').update(canonical, 'utf8').digest('hex').slice(0, 32)}`;
}

const messages = [
  { role: 'user', content: { type: 'text', text: 'Summarise the incident.' } },
  { role: 'assistant', content: { type: 'text', text: 'Which one?' } },
  { role: 'user', content: { type: 'text', text: 'INC-42' } },
];

function sampling(extra: Record<string, unknown>): { method: string; params: Record<string, unknown> } {
  return { method: 'sampling/createMessage', params: { messages, maxTokens: 200, ...extra } };
}

describe('requestIdentity', () => {
  it('is the server, a colon and the first 32 hex digits of sha256 over the canonical identity fields', () => {
    const request = JSON.parse(
      '{"method":"tools/call","params":{"name":"search","arguments":{"q":"caf\\u00e9","n":2}}}',
    );
    const identity = requestIdentity('files', request);
    expect(identity).toMatch(/^files:[0-9a-f]{32}$/);
    expect(identity).toBe(expectedIdentity('files', '{"arguments":{"n":2,"q":"café"},"name":"search"}'));
  });

  it('hashes the four sampling fields with null for the absent ones', () => {
    const request = sampling({ systemPrompt: 'Be brief.', temperature: 0.2 });
    const canonical =
      '{"includeContext":null,"messages":[' +
      '{"content":{"text":"Summarise the incident.","type":"text"},"role":"user"},' +
      '{"content":{"text":"Which one?","type":"text"},"role":"assistant"},' +
      '{"content":{"text":"INC-42","type":"text"},"role":"user"}' +
      '],"modelPreferences":null,"systemPrompt":"Be brief."}';
    expect(requestIdentity('llm', request)).toBe(expectedIdentity('llm', canonical));
  });

  it('hashes method and params, less _meta, for other methods', () => {
    const request = { method: 'resources/read', params: { uri: 'file:///a.txt', _meta: { progressToken: 7 } } };
    expect(requestIdentity('fs', request)).toBe(
      expectedIdentity('fs', '{"method":"resources/read","params":{"uri":"file:///a.txt"}}'),
    );
    expect(requestIdentity('fs', { method: 'tools/list' })).toBe(
      expectedIdentity('fs', '{"method":"tools/list","params":null}'),
    );
  });

  it('differs between servers for the same request, with the same digest part', () => {
    const request = { method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } };
    const a = requestIdentity('alpha', request);
    const b = requestIdentity('beta', request);
    expect(a).not.toBe(b);
    expect(a?.split(':')[1]).toBe(b?.split(':')[1]);
  });

  it('is null when there is no string method', () => {
    expect(requestIdentity('s', undefined)).toBeNull();
    expect(requestIdentity('s', null)).toBeNull();
    expect(requestIdentity('s', {})).toBeNull();
    expect(requestIdentity('s', { params: { name: 'x' } })).toBeNull();
    expect(requestIdentity('s', { method: 42, params: {} })).toBeNull();
    expect(requestIdentity('s', { method: null })).toBeNull();
  });

  it('is null when the identity fields have no canonical JSON, rather than throwing', () => {
    const request = { method: 'tools/call', params: { name: 'x', arguments: { q: 'broken \ud800 emoji' } } };
    expect(() => canonicalJson(identityPayload(request.method, request.params))).toThrow(TypeError);
    expect(requestIdentity('s', request)).toBeNull();
  });

  it('ignores member order, whitespace and number spelling in the request text', () => {
    const a = JSON.parse('{"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"x","limit":100}}}');
    const b = JSON.parse(`{
      "params": { "arguments": { "limit": 1E2, "pattern": "x" }, "name": "grep" },
      "method": "tools/call"
    }`);
    expect(requestIdentity('s', b)).toBe(requestIdentity('s', a));
  });

  it('gives NFC and NFD spellings the same identity, in values and in member names', () => {
    const composed = JSON.parse(
      '{"method":"tools/call","params":{"name":"caf\\u00e9","arguments":{"r\\u00e9sum\\u00e9":"\\u00e9"}}}',
    );
    const decomposed = JSON.parse(
      '{"method":"tools/call","params":{"name":"cafe\\u0301","arguments":{"re\\u0301sume\\u0301":"e\\u0301"}}}',
    );
    expect(requestIdentity('s', decomposed)).toBe(requestIdentity('s', composed));
    const other = JSON.parse('{"method":"tools/call","params":{"name":"cafe","arguments":{"resume":"e"}}}');
    expect(requestIdentity('s', other)).not.toBe(requestIdentity('s', composed));
  });

  it('tells apart requests that differ in what they ask', () => {
    const base = { method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } };
    const id = requestIdentity('s', base);
    expect(requestIdentity('s', { ...base, params: { name: 'search', arguments: { q: 'y' } } })).not.toBe(id);
    expect(requestIdentity('s', { ...base, params: { name: 'find', arguments: { q: 'x' } } })).not.toBe(id);
    expect(requestIdentity('s', { method: 'prompts/get', params: { name: 'p' } })).not.toBe(
      requestIdentity('s', { method: 'resources/read', params: { name: 'p' } }),
    );
  });
});

describe('requestIdentity for sampling/createMessage', () => {
  it('leaves out maxTokens, temperature and stopSequences', () => {
    const first = requestIdentity('llm', sampling({ maxTokens: 100, temperature: 0, stopSequences: ['\n'] }));
    const retry = requestIdentity('llm', sampling({ maxTokens: 4000, temperature: 0.9, stopSequences: [] }));
    const bare = requestIdentity('llm', { method: 'sampling/createMessage', params: { messages } });
    expect(retry).toBe(first);
    expect(bare).toBe(first);
  });

  it('tells apart requests that differ in includeContext, systemPrompt, messages or modelPreferences', () => {
    const base = requestIdentity('llm', sampling({ includeContext: 'none' }));
    expect(requestIdentity('llm', sampling({ includeContext: 'thisServer' }))).not.toBe(base);
    expect(requestIdentity('llm', sampling({ includeContext: 'allServers' }))).not.toBe(base);
    expect(requestIdentity('llm', sampling({}))).not.toBe(base);
    expect(requestIdentity('llm', sampling({ includeContext: 'none', systemPrompt: 'x' }))).not.toBe(base);
    expect(requestIdentity('llm', sampling({ includeContext: 'none', messages: messages.slice(1) }))).not.toBe(base);
    const prefs = { intelligencePriority: 0.8 };
    expect(requestIdentity('llm', sampling({ includeContext: 'none', modelPreferences: prefs }))).not.toBe(base);
  });

  it('treats an absent field and an explicit null alike', () => {
    const absent = requestIdentity('llm', sampling({}));
    expect(requestIdentity('llm', sampling({ modelPreferences: null }))).toBe(absent);
    expect(requestIdentity('llm', sampling({ modelPreferences: null, includeContext: null, systemPrompt: null }))).toBe(
      absent,
    );
  });

  it('leaves out _meta', () => {
    const a = requestIdentity('llm', sampling({ _meta: { progressToken: 'p-1' } }));
    const b = requestIdentity('llm', sampling({ _meta: { progressToken: 'p-2', traceparent: '00-abc-def-01' } }));
    expect(b).toBe(a);
    expect(requestIdentity('llm', sampling({}))).toBe(a);
  });
});

describe('requestIdentity leaves out params._meta', () => {
  it('for tools/call', () => {
    const call = (meta: unknown) => ({
      method: 'tools/call',
      params: { name: 'search', arguments: { q: 'x' }, _meta: meta },
    });
    const a = requestIdentity('s', call({ progressToken: 1 }));
    expect(requestIdentity('s', call({ progressToken: 2, traceparent: '00-4bf92f-00f067-01' }))).toBe(a);
    expect(requestIdentity('s', { method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } })).toBe(a);
  });

  it('for other methods', () => {
    const read = (meta: unknown) => ({ method: 'resources/read', params: { uri: 'file:///a', _meta: meta } });
    const a = requestIdentity('s', read({ progressToken: 'a' }));
    expect(requestIdentity('s', read({ progressToken: 'b', traceparent: '00-x-y-01' }))).toBe(a);
    expect(requestIdentity('s', { method: 'resources/read', params: { uri: 'file:///a' } })).toBe(a);
    expect(requestIdentity('s', { method: 'resources/read', params: { uri: 'file:///b', _meta: {} } })).not.toBe(a);
  });

  it('only at the top of params: a _meta inside tool arguments is part of the question', () => {
    const call = (meta: unknown) => ({ method: 'tools/call', params: { name: 't', arguments: { _meta: meta } } });
    expect(requestIdentity('s', call(1))).not.toBe(requestIdentity('s', call(2)));
  });
});

describe('identityPayload', () => {
  it('picks exactly the sampling identity fields, null when absent', () => {
    const payload = identityPayload('sampling/createMessage', { messages: [], temperature: 1, _meta: {} });
    expect(Object.keys(payload as object).sort()).toEqual([...SAMPLING_IDENTITY_FIELDS].sort());
    expect(payload).toEqual({ systemPrompt: null, messages: [], includeContext: null, modelPreferences: null });
  });

  it('picks name and arguments for tools/call', () => {
    expect(TOOLS_CALL_IDENTITY_FIELDS).toEqual(['name', 'arguments']);
    expect(identityPayload('tools/call', { name: 'n', _meta: { progressToken: 1 }, extra: 1 })).toEqual({
      name: 'n',
      arguments: null,
    });
  });

  it('gives all-null fields when sampling or tools/call params are absent or null', () => {
    expect(identityPayload('tools/call', undefined)).toEqual({ name: null, arguments: null });
    expect(identityPayload('tools/call', null)).toEqual({ name: null, arguments: null });
    expect(identityPayload('sampling/createMessage', undefined)).toEqual({
      systemPrompt: null,
      messages: null,
      includeContext: null,
      modelPreferences: null,
    });
  });

  it('keeps array or scalar params whole, so malformed requests do not all share one identity', () => {
    expect(identityPayload('tools/call', ['search', { q: 'x' }])).toEqual({
      method: 'tools/call',
      params: ['search', { q: 'x' }],
    });
    expect(requestIdentity('s', { method: 'tools/call', params: ['a'] })).not.toBe(
      requestIdentity('s', { method: 'tools/call', params: ['b'] }),
    );
  });

  it('removes _meta from other params without touching the request', () => {
    const params = { uri: 'file:///a', _meta: { progressToken: 1 } };
    expect(identityPayload('resources/read', params)).toEqual({
      method: 'resources/read',
      params: { uri: 'file:///a' },
    });
    expect(params._meta).toEqual({ progressToken: 1 });
    expect(identityPayload('ping', undefined)).toEqual({ method: 'ping', params: null });
    expect(identityPayload('ping', null)).toEqual({ method: 'ping', params: null });
  });

  it('keeps a __proto__ member of params while removing _meta', () => {
    const params = JSON.parse('{"__proto__":{"a":1},"_meta":{},"b":2}');
    expect(canonicalJson(identityPayload('x/y', params))).toBe('{"method":"x/y","params":{"__proto__":{"a":1},"b":2}}');
  });
});
