import { describe, expect, it } from 'vitest';
import {
  type AllowEntry,
  type BlockedCategory,
  canonicalAddress,
  classifyAddress,
  judgeTarget,
  parseAllowEntry,
  parseAllowList,
} from './address-policy.ts';

describe('the address policy of alert targets', () => {
  it.each<[string, BlockedCategory | null | undefined]>([
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    // link-local, the cloud metadata service among them
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    // private networks
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.5', 'private'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::1', 'private'],
    // unspecified ("this network": connecting to it reaches this machine)
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    // carrier-grade NAT
    ['100.64.0.1', 'shared'],
    ['100.100.100.200', 'shared'],
    ['100.127.255.255', 'shared'],
    // multicast and reserved
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    // IPv6 forms that stand for an IPv4 address are judged as that address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:100.64.0.1', 'shared'],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::808:808', null],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:808:808::1', null],
    ['::127.0.0.1', 'reserved'],
    // public
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['100.63.255.255', null],
    ['100.128.0.0', null],
    ['172.15.255.255', null],
    ['172.32.0.0', null],
    ['169.253.255.255', null],
    ['11.0.0.0', null],
    ['2606:4700:4700::1111', null],
    ['2a00:1450:4001:82a::200e', null],
    // not addresses at all
    ['localhost', undefined],
    ['hooks.slack.com', undefined],
    ['127.1', undefined],
    ['1.2.3.256', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
    ['1::2::3', undefined],
    ['::ffff:1.2.3', undefined],
    ['12345::', undefined],
  ])('classifies %s as %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['[::1]', '0:0:0:0:0:0:0:1'],
    ['0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:1'],
    ['FE80::A', 'fe80:0:0:0:0:0:0:a'],
    ['10.0.0.1', '10.0.0.1'],
  ])('spells %s one way: %s', (address, canonical) => {
    expect(canonicalAddress(address)).toBe(canonical);
  });

  it.each<[string, AllowEntry | null]>([
    ['127.0.0.1', { host: '127.0.0.1', port: null }],
    ['127.0.0.1:7727', { host: '127.0.0.1', port: 7727 }],
    ['LocalHost', { host: 'localhost', port: null }],
    ['hooks.internal:8443', { host: 'hooks.internal', port: 8443 }],
    ['metadata.google.internal.', { host: 'metadata.google.internal', port: null }],
    ['[::1]:8080', { host: '0:0:0:0:0:0:0:1', port: 8080 }],
    ['[::1]', { host: '0:0:0:0:0:0:0:1', port: null }],
    ['::1', { host: '0:0:0:0:0:0:0:1', port: null }],
    ['  10.0.0.5  ', { host: '10.0.0.5', port: null }],
    ['', null],
    ['host:0', null],
    ['host:65536', null],
    ['host:port', null],
    ['http://host/', null],
    ['host/path', null],
    ['user@host', null],
    ['[::1', null],
    ['[::1]8080', null],
    ['[nope]:80', null],
    ['a:b:c', null],
  ])('reads the allow-list entry "%s"', (text, entry) => {
    expect(parseAllowEntry(text)).toEqual(entry);
  });

  it('names the entries it cannot read', () => {
    expect(parseAllowList(['127.0.0.1:9', 'nope:x', 'ok.example'])).toEqual({
      entries: [
        { host: '127.0.0.1', port: 9 },
        { host: 'ok.example', port: null },
      ],
      invalid: ['nope:x'],
    });
  });

  const allow = (...texts: string[]) => parseAllowList(texts).entries;
  it.each<[string, Parameters<typeof judgeTarget>[0], ReturnType<typeof judgeTarget>]>([
    ['a public name', { host: 'hooks.slack.com', port: 443, addresses: ['3.1.2.3'], allow: [] }, { allowed: true }],
    [
      'loopback by address',
      { host: '127.0.0.1', port: 7727, addresses: ['127.0.0.1'], allow: [] },
      { allowed: false, category: 'loopback' },
    ],
    [
      'a name resolving to loopback',
      { host: 'localhost', port: 80, addresses: ['127.0.0.1', '::1'], allow: [] },
      { allowed: false, category: 'loopback' },
    ],
    [
      'a metadata name resolving to the metadata service',
      { host: 'metadata.google.internal', port: 80, addresses: ['169.254.169.254'], allow: [] },
      { allowed: false, category: 'link-local' },
    ],
    [
      'a name with one public and one private answer',
      { host: 'mixed.example', port: 443, addresses: ['3.1.2.3', '10.0.0.7'], allow: [] },
      { allowed: false, category: 'private' },
    ],
    [
      'an IPv4-mapped loopback answer',
      { host: 'sneaky.example', port: 443, addresses: ['::ffff:127.0.0.1'], allow: [] },
      { allowed: false, category: 'loopback' },
    ],
    [
      "this server's own public address",
      { host: 'self.example', port: 7700, addresses: ['203.0.114.9'], allow: [], own: ['203.0.114.9'] },
      { allowed: false, category: 'own' },
    ],
    [
      'no address at all',
      { host: 'gone.example', port: 443, addresses: [], allow: [] },
      { allowed: false, category: 'unspecified' },
    ],
    [
      'a resolver answer that is no address',
      { host: 'odd.example', port: 443, addresses: ['not-an-ip'], allow: [] },
      { allowed: false, category: 'reserved' },
    ],
    [
      'loopback allowed by address and port',
      { host: '127.0.0.1', port: 7727, addresses: ['127.0.0.1'], allow: allow('127.0.0.1:7727') },
      { allowed: true },
    ],
    [
      'loopback allowed on another port only',
      { host: '127.0.0.1', port: 7728, addresses: ['127.0.0.1'], allow: allow('127.0.0.1:7727') },
      { allowed: false, category: 'loopback' },
    ],
    [
      'a name allowed by name, whatever it resolves to',
      { host: 'LOCALHOST.', port: 9000, addresses: ['127.0.0.1'], allow: allow('localhost') },
      { allowed: true },
    ],
    [
      'a name allowed through the address it resolves to',
      { host: 'hooks.corp', port: 80, addresses: ['10.1.2.3'], allow: allow('10.1.2.3') },
      { allowed: true },
    ],
    [
      'an allowed address next to one that is not',
      { host: 'hooks.corp', port: 80, addresses: ['10.1.2.3', '10.9.9.9'], allow: allow('10.1.2.3') },
      { allowed: false, category: 'private' },
    ],
    [
      'IPv6 loopback allowed in brackets',
      { host: '[::1]', port: 8080, addresses: ['::1'], allow: allow('[::1]:8080') },
      { allowed: true },
    ],
    [
      'an allowed IPv4 address reached in its mapped IPv6 form',
      { host: 'mapped.example', port: 80, addresses: ['::ffff:127.0.0.1'], allow: allow('127.0.0.1') },
      { allowed: true },
    ],
  ])('judges %s', (_what, target, verdict) => {
    expect(judgeTarget(target)).toEqual(verdict);
  });
});
