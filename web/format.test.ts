import { describe, expect, it } from 'vitest';
import {
  counted,
  formatAgo,
  formatBytes,
  formatDuration,
  formatShare,
  formatTime,
  formatTimeMs,
  formatWindow,
  shareOf,
  shortDigest,
  shortIdentity,
} from './format.ts';

describe('format', () => {
  it('shows file sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MiB');
  });

  it('shows shares without pretending: a dash for nothing to divide, <0.1 % for a sliver', () => {
    expect(formatShare(null)).toBe('–');
    expect(formatShare(0)).toBe('0 %');
    expect(formatShare(0.0004)).toBe('<0.1 %');
    expect(formatShare(0.0266)).toBe('2.7 %');
    expect(formatShare(0.5849)).toBe('58 %');
    expect(formatShare(11_999 / 12_000)).toBe('>99.9 %');
    expect(shareOf(1, 0)).toBeNull();
  });

  it('formats times in UTC and spans in two units', () => {
    const t = Date.UTC(2026, 10, 30, 8, 3, 0, 45);
    expect(formatTime(t)).toBe('08:03:00');
    expect(formatTimeMs(t)).toBe('08:03:00.045');
    expect(formatDuration(450)).toBe('450 ms');
    expect(formatDuration(3_200)).toBe('3.2 s');
    expect(formatDuration(161_000)).toBe('2 min 41 s');
    expect(formatDuration(35_997_000)).toBe('9 h 59 min');
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000)).toBe('2 d 3 h');
    expect(formatDuration(60_000), 'no zero second unit').toBe('1 min');
    expect(formatDuration(900_000)).toBe('15 min');
    expect(formatDuration(3_600_000)).toBe('1 h');
    expect(formatDuration(2 * 86_400_000)).toBe('2 d');
    expect(formatAgo(t - 30_000, t)).toBe('just now');
    expect(formatAgo(t - 4 * 60_000, t)).toBe('4 min ago');
  });

  it('says how long ago in words, its noun agreeing: never "3 d ago" or "1 hours ago"', () => {
    const t = Date.UTC(2026, 10, 30, 8, 3, 0);
    expect(formatAgo(t + 5_000, t), 'a clock a little ahead').toBe('just now');
    expect(formatAgo(t - 59 * 60_000, t)).toBe('59 min ago');
    expect(formatAgo(t - 60 * 60_000, t)).toBe('1 hour ago');
    expect(formatAgo(t - 23 * 3_600_000 - 59 * 60_000, t)).toBe('23 hours ago');
    expect(formatAgo(t - 86_400_000, t)).toBe('1 day ago');
    expect(formatAgo(t - (3 * 86_400_000 + 5 * 3_600_000), t)).toBe('3 days ago');
  });

  it('counts with a noun that agrees with the number', () => {
    expect(counted(1, 'request')).toBe('1 request');
    expect(counted(0, 'request')).toBe('0 requests');
    expect(counted(12_000, 'request')).toBe('12,000 requests');
    expect(counted(2, 'identity', 'identities')).toBe('2 identities');
    expect(counted(1, 'identity', 'identities')).toBe('1 identity');
  });

  it("shows a window's end date only when it falls on another day", () => {
    const t = Date.UTC(2026, 10, 30, 18, 0);
    expect(formatWindow(t, t + 300_000)).toBe('30 Nov 18:00 – 18:05 UTC');
    expect(formatWindow(t, Date.UTC(2026, 11, 1))).toBe('30 Nov 18:00 – 00:00 UTC');
    expect(formatWindow(t, t + 86_400_000)).toBe('30 Nov 18:00 – 1 Dec 18:00 UTC');
  });

  it('shortens an identity to its server and a prefix of the digest', () => {
    expect(shortIdentity('release-notes:5dca032b44498b59f7edff6ee892bb93')).toBe('release-notes:5dca032b…');
  });

  it("shortens an identity to its digest's prefix on its server's page, where the server goes without saying", () => {
    expect(shortDigest('release-notes:5dca032b44498b59f7edff6ee892bb93')).toBe('5dca032b…');
    expect(shortDigest('a:b:c:1234')).toBe('1234');
  });
});
