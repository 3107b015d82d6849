/**
 * `lens classify` over the MCP TypeScript SDK v2 corpus (MCP 2026-07-28, DOMAIN.md section 10): every event's
 * verdict as expected.json has it, with the outcome (`pending` for an input request), whether the round continues
 * its call, and the era; from the client log alone, and from the nginx JSON log alone, which has the
 * `Mcp-Method` and `MCP-Protocol-Version` headers but no frame.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lens } from '../support/cli.ts';
import { corpusPath, expectedOf, firmView, ruleNumber } from '../support/corpus.ts';
import { inBetweenScenario } from '../support/in-between.ts';

interface Classified {
  id: string;
  bucket: string;
  kind: string;
  rule: string;
  avoidable: boolean | null;
  identity: string | null;
  outcome: string;
  continuation: boolean;
  era: string | null;
  method: string | null;
  server: string;
  partner?: string;
}

async function classify(...logs: string[]): Promise<Classified[]> {
  const discovery = corpusPath('mcp-ts-v2', 'discovery.servers.json');
  const { code, stdout, stderr } = await lens(['classify', '--discovery', discovery, ...logs]);
  expect(code, stderr).toBe(0);
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Classified);
}

describe('lens classify over MCP 2026-07-28 traffic', () => {
  const expected = expectedOf('mcp-ts-v2').events as Record<
    string,
    ReturnType<typeof expectedOf>['events'][string] & { outcome?: string; continuation?: boolean; era?: string | null }
  >;

  it("gives every event of the client log expected.json's verdict, outcome, continuation and era", async () => {
    const lines = await classify(corpusPath('mcp-ts-v2', 'client.ndjson'));
    expect(lines).toHaveLength(Object.keys(expected).length);
    for (const line of lines) {
      const want = expected[line.id];
      if (want === undefined) throw new Error(`${line.id} is not in expected.json`);
      expect({ id: line.id, ...firmView(line), identity: line.identity }).toEqual({
        id: line.id,
        ...firmView(want),
        identity: want.identity,
      });
      expect({ id: line.id, outcome: line.outcome, continuation: line.continuation, era: line.era }).toEqual({
        id: line.id,
        outcome: want.outcome ?? (want.bucket === 'ok' ? 'ok' : 'failed'),
        continuation: want.continuation ?? false,
        era: want.era ?? null,
      });
      if (want.kindFrom === 'DOMAIN.md' && ruleNumber(line.rule) === 10) expect(line.kind).toBe(want.kind);
    }
  });

  it('reads what the headers can decide from the nginx JSON log alone: the method, the server, the era', async () => {
    const client = new Map(
      (await classify(corpusPath('mcp-ts-v2', 'client.ndjson'))).map((line) => [line.id, line] as const),
    );
    const proxy = await classify(corpusPath('mcp-ts-v2', 'nginx-access.json.log'));
    expect(proxy).toHaveLength(client.size);
    // The lines carry no frame: what a 2026-07-28 request names in its headers reaches the event, and a line whose
    // client sent the 2026-07-28 headers is of that era, whatever the path.
    const withMethod = proxy.filter((line) => line.method !== null);
    expect(withMethod.length).toBeGreaterThan(60);
    expect(proxy.filter((line) => line.era === '2026').length).toBeGreaterThan(50);
    // A line of a declared path goes to the server that declares it; the prober's undeclared paths name none.
    for (const line of proxy) {
      const partnerServer = client.get(line.partner ?? '')?.server;
      if (line.server !== 'unknown') expect(expectedOf('mcp-ts-v2').servers).toContain(line.server);
      else expect(partnerServer).toBeUndefined();
    }
    expect(new Set(proxy.map((line) => line.server))).toEqual(
      new Set([...(expectedOf('mcp-ts-v2').servers ?? []), 'unknown']),
    );
    for (const line of proxy) expect(['ok', 'failed', 'pending']).toContain(line.outcome);
  });

  it('says offline, as the API does, whether a 2026-07-28 client re-probed or restarted between refusal and answer', async () => {
    const { events, expected } = inBetweenScenario();
    const dir = mkdtempSync(join(tmpdir(), 'lens-between-'));
    try {
      const log = join(dir, 'between.ndjson');
      writeFileSync(log, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
      const { code, stdout, stderr } = await lens(['report', '--json', log]);
      expect(code, stderr).toBe(0);
      const items: { newSession: boolean | null; reprobed: boolean | null; restarted: boolean | null }[] =
        JSON.parse(stdout).denialsNotHeld.items;
      expect(items.map((d) => [d.newSession, d.reprobed, d.restarted])).toEqual(expected);
      const text = await lens(['report', log]);
      expect(text.stdout).toMatch(/\bre-probed\b/);
      expect(text.stdout).toMatch(/\bclient restarted\b/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts offline, as the API does, what the server asked inside its rounds as sends of their identities', async () => {
    const discovery = corpusPath('mcp-ts-v2', 'discovery.servers.json');
    const log = corpusPath('mcp-ts-v2', 'client.ndjson');
    const { code, stdout, stderr } = await lens(['report', '--json', '--discovery', discovery, log]);
    expect(code, stderr).toBe(0);
    const identities: { identity: string; sends: number; represented: number; method: string; last: { id: string } }[] =
      JSON.parse(stdout).identities;
    const scenario = expectedOf('mcp-ts-v2').scenarios['cautious-agent'] as unknown as {
      serverRequests: { requests: { event: string; identity: string; method: string }[] };
    };
    const asked = scenario.serverRequests.requests;
    const elicitation = identities.find((i) => i.identity === asked[0]?.identity);
    expect(elicitation).toMatchObject({
      sends: asked.length,
      represented: asked.length - 1,
      method: asked[0]?.method,
      last: { id: asked.at(-1)?.event },
    });
  });
});
