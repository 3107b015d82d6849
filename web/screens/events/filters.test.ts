import { describe, expect, it } from 'vitest';
import { readEventFilters, readSelection } from './filters.ts';

describe('event filters in the URL', () => {
  const range = { preset: '24h' } as const;

  it('keeps the filters the API takes and drops empty or unknown ones', () => {
    const params = new URLSearchParams('server=docs&client=&bucket=refusal&kind=%20not_declared%20&x=1');
    expect(readEventFilters(params, range)).toEqual({ range, server: 'docs', bucket: 'refusal', kind: 'not_declared' });
    expect(readEventFilters(new URLSearchParams('bucket=bogus'), range)).toEqual({ range });
  });

  it('lists every record only when the URL says records=all', () => {
    expect(readEventFilters(new URLSearchParams('records=all&server=docs'), range)).toEqual({
      range,
      server: 'docs',
      records: 'all',
    });
    expect(readEventFilters(new URLSearchParams('records=counted'), range)).toEqual({ range });
    expect(readEventFilters(new URLSearchParams('records='), range)).toEqual({ range });
  });

  it('opens an event only with both its id and its time', () => {
    expect(readSelection(new URLSearchParams('event=e1&at=1796025780000'))).toEqual({ id: 'e1', at: 1796025780000 });
    expect(readSelection(new URLSearchParams('event=e1'))).toBeNull();
    // A list narrowed to a server lists only its events: the open one's server, a hint of where it is stored.
    expect(readSelection(new URLSearchParams('server=docs&event=e1&at=1796025780000'))).toEqual({
      id: 'e1',
      at: 1796025780000,
      server: 'docs',
    });
  });
});
