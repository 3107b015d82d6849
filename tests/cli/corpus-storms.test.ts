/**
 * `lens report --json` finds every corpus's storms as DOMAIN.md section 6 defines them: expected.json's list, each
 * storm with the ids of its attempts and of its avoidable attempts, from the client log alone and with its nginx log
 * beside it (the proxy lines join their requests and add no storm).
 */
import { describe, expect, it } from 'vitest';
import { lens } from '../support/cli.ts';
import { ALL_CORPORA, type CorpusName, corpusPath, expectedOf } from '../support/corpus.ts';

function discoveryOf(corpus: CorpusName): string {
  return corpusPath(corpus, corpus === 'mcp-ts-v2' ? 'discovery.servers.json' : 'discovery.json');
}

interface ReportedStorm {
  kind: string;
  actor: string;
  counterpart: string;
  server: string;
  attemptIds: string[];
  avoidableIds: string[];
  title: string;
}

async function reportedStorms(args: string[]) {
  const { code, stdout, stderr } = await lens(['report', '--json', ...args]);
  expect(code, stderr).toBe(0);
  return (JSON.parse(stdout) as { storms: ReportedStorm[] }).storms.map((s) => ({
    kind: s.kind,
    actor: s.actor,
    counterpart: s.counterpart,
    server: s.server,
    attempts: s.attemptIds,
    avoidable: s.avoidableIds,
    title: s.title,
  }));
}

describe.each(ALL_CORPORA)('the storms of %s through lens report', (corpus) => {
  const expected = expectedOf(corpus).storms;

  it("are expected.json's, attempt for attempt, from the client log", async () => {
    expect(expected.length).toBeGreaterThan(0);
    expect(await reportedStorms(['--discovery', discoveryOf(corpus), corpusPath(corpus, 'client.ndjson')])).toEqual(
      expected,
    );
  });

  it('are the same with the nginx log beside it, no --server given', async () => {
    const logs = [corpusPath(corpus, 'client.ndjson'), corpusPath(corpus, 'nginx-access.json.log')];
    expect(await reportedStorms(['--discovery', discoveryOf(corpus), ...logs])).toEqual(expected);
  });
});
