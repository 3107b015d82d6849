import { describe, expect, it } from 'vitest';
import { requestIdentity } from '../shared/identity.ts';
import { storedDigest, storedIdentity } from './stored-identity.ts';

const LIST = { method: 'tools/list' };
const CALL = { method: 'tools/call', params: { name: 'search', arguments: { q: 'café' } } };

/** Server names as logs give them: with colons (the digest is what follows the last), Unicode, astral, hostile. */
const SERVERS = ['files', 'a:b', 'tcp://10.0.0.1:8080', ':', 'сервер-ü 服务 🚀', '__proto__', 'x'.repeat(200)];

describe('a stored identity', () => {
  it('is the server and the digest of the public identity, which they give back as `server:` + digest', () => {
    for (const server of SERVERS) {
      for (const request of [LIST, CALL]) {
        const identity = requestIdentity(server, request) as string;
        const stored = storedIdentity(identity);
        expect(stored?.server, identity).toBe(server);
        expect(stored?.digest).toMatch(/^[0-9a-f]{32}$/);
        expect(`${stored?.server}:${stored?.digest}`).toBe(identity);
        expect(storedDigest(identity, server)).toBe(stored?.digest);
      }
    }
  });

  it('keeps one digest for one request on every server, and the server apart', () => {
    const [a, b] = ['a', 'a:b'].map((server) => storedIdentity(requestIdentity(server, LIST) as string));
    expect(a?.digest).toBe(b?.digest);
    expect([a?.server, b?.server]).toEqual(['a', 'a:b']);
  });

  it('is nothing for a string that is no identity, as an API caller may send', () => {
    const digest = 'ab'.repeat(16);
    for (const text of [
      '',
      digest,
      `files:${digest.slice(1)}`,
      `files:${digest}0`,
      `files:${digest.toUpperCase()}`,
      `files:${digest.slice(0, 31)}g`,
      `files:${digest}:`,
      `files:${digest} `,
      `files: ${digest.slice(1)}`,
      `files:${'é'.repeat(32)}`,
      'files:',
      '%00',
    ]) {
      expect(storedIdentity(text), text).toBeNull();
    }
    // An empty server is no server a log names, but the string is well formed: it simply matches no stored row.
    expect(storedIdentity(`:${digest}`)).toEqual({ server: '', digest });
  });

  it('is never stored under another server than the one its row names', () => {
    const identity = requestIdentity('a:b', CALL);
    expect(storedDigest(null, 'a')).toBeNull();
    expect(() => storedDigest(identity, 'a')).toThrow(/not one of server "a"/);
    expect(() => storedDigest(identity, 'b')).toThrow();
    expect(() => storedDigest('not an identity', 'a')).toThrow();
  });
});
