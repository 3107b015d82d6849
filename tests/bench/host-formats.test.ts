import { describe, expect, it } from 'vitest';
import { hostSubjects } from '../../bench/host-formats.ts';
import { HOST_FORMATS } from '../../shared/host-logs/index.ts';

/**
 * `npm run bench` prints each host format's read rate beside native NDJSON's (issue 37): every format ingest reads as
 * a host log has a subject, and each reads its fixture into events without refusing a line.
 */
describe('the format bench of host logs', () => {
  const subjects = hostSubjects(400);

  it('has a subject for every host format', () => {
    expect(subjects.map((s) => s.name).sort()).toEqual([...HOST_FORMATS].sort());
  });

  it.each(subjects.map((s) => [s.name, s] as const))('%s: reads its lines into events, none refused', (_, subject) => {
    const tally = { refused: 0, warnings: 0 };
    const pass = subject.run(tally);
    expect(pass.items).toBe(400);
    expect(pass.events).toBeGreaterThan(0);
    expect(tally.refused).toBe(0);
  });
});
