import type { SqlRunner } from '../../../db/runner.ts';
import type { Storm } from '../../../shared/analysis/storms.ts';
import { stormsIn } from './traffic.ts';

/** Storm ids carry where to find the storm again (client, server, start), so that a link to one keeps working. */
export function stormId(storm: Pick<Storm, 'id' | 'client' | 'server' | 'firstTs'>): string {
  return Buffer.from(JSON.stringify([storm.client, storm.server, storm.firstTs, storm.id])).toString('base64url');
}

/** A storm for a list: its id made findable, its attempt timeline left for the detail. */
export function stormSummary({ timeline: _timeline, ...storm }: Storm) {
  return { ...storm, id: stormId(storm) };
}

export async function stormById(db: SqlRunner, id: string, now: number): Promise<(Storm & { id: string }) | null> {
  const found = parseStormId(id);
  if (found === null) return null;
  const [client, server, firstTs, detectorId] = found;
  const storms = await stormsIn(db, { client, server, from: firstTs, to: now + 1 });
  const storm = storms.find((s) => s.id === detectorId);
  return storm === undefined ? null : { ...storm, id: stormId(storm) };
}

function parseStormId(id: string): [string, string, number, string] | null {
  try {
    const value = JSON.parse(Buffer.from(id, 'base64url').toString());
    const ok =
      Array.isArray(value) &&
      value.length === 4 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      Number.isSafeInteger(value[2]) &&
      typeof value[3] === 'string';
    return ok ? (value as [string, string, number, string]) : null;
  } catch {
    return null;
  }
}
