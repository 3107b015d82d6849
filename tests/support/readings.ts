import { get, type TestApp } from './app.ts';

const SERVERS = ['s0', 's1', 's2'];

/**
 * What the dashboard reads of a store over `range` (a query string), every maintained number among it: the
 * summary, the series by the minute, servers, clients and one server's drill-down each, storms, identities and
 * the context gap, and every stored event's flags. Two stores holding the same events answer the same.
 */
export async function readEverything(app: TestApp, range: string): Promise<Record<string, unknown>> {
  const paths = [
    `/api/v1/summary?${range}`,
    `/api/v1/timeseries?${range}&step=1m`,
    `/api/v1/servers?${range}`,
    `/api/v1/clients?${range}`,
    `/api/v1/storms?${range}&limit=1000`,
    `/api/v1/identities?${range}&limit=50`,
    `/api/v1/identities?${range}&limit=50&only=alarmed`,
    `/api/v1/context-gap?${range}`,
    ...SERVERS.map((server) => `/api/v1/servers/${server}?${range}`),
  ];
  const answers: Record<string, unknown> = {};
  for (const path of paths) {
    const response = await get(app, path);
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    answers[path] = await response.json();
  }
  answers.events = await eventFlags(app);
  return answers;
}

/** Each stored event's id with what the fold and the gate decided of it, sorted by id. */
async function eventFlags(app: TestApp) {
  const flags: unknown[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = (await (await get(app, `/api/v1/events?records=all&limit=1000${query}`)).json()) as {
      events: { id: string; counted: boolean; partner: string | null; avoidable: boolean; bucket: string }[];
      nextCursor: string | null;
    };
    for (const e of page.events) flags.push([e.id, e.counted, e.partner, e.avoidable, e.bucket]);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return flags.sort((a, b) => String((a as string[])[0]).localeCompare(String((b as string[])[0])));
}
