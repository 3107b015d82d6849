import { describe, expect, it } from 'vitest';
import { holdsRecord, RECORDS, REQUESTS, shownLine } from './rows.ts';

describe('the words of an events list', () => {
  it('counts what its rows are, with the total of the whole list', () => {
    expect(shownLine(50, { count: 120, capped: false }, REQUESTS)).toBe('50 of 120 requests shown');
    expect(shownLine(240, { count: 240, capped: false }, RECORDS)).toBe('240 of 240 records shown');
    expect(shownLine(1, { count: 1, capped: false }, REQUESTS)).toBe('1 of 1 request shown');
    expect(shownLine(0, { count: 0, capped: false }, REQUESTS)).toBe('0 of 0 requests shown');
  });

  it('says "more than" where the count stopped, and what it shows when no total came', () => {
    expect(shownLine(50, { count: 10_000, capped: true }, REQUESTS)).toBe('50 of more than 10,000 requests shown');
    expect(shownLine(1, null, RECORDS)).toBe('1 record shown');
    expect(shownLine(12_000, null, REQUESTS)).toBe('12,000 requests shown');
  });

  it("holds the open record when it is the request's own or the one behind it", () => {
    const row = { id: 'burst-005', partnerRecord: { id: 'px:9f' } };
    expect(holdsRecord(row, 'burst-005')).toBe(true);
    expect(holdsRecord(row, 'px:9f')).toBe(true);
    expect(holdsRecord(row, 'burst-006')).toBe(false);
    expect(holdsRecord({ id: 'alone', partnerRecord: null }, null)).toBe(false);
  });
});
