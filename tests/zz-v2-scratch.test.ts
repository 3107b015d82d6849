import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { OfflineRun } from '../api/cli/offline.ts';
import { replayGate } from '../shared/analysis/gate.ts';
import type { AnalysisEvent } from '../shared/analysis/types.ts';
import { corpusPath, ruleNumber } from './support/corpus.ts';

it('diff', async () => {
  const corpus = 'mcp-ts-v2';
  const events: AnalysisEvent[] = [];
  for await (const { analysis } of (
    await OfflineRun.fromArgs('report', [
      '--discovery',
      corpusPath(corpus as never, 'discovery.json'),
      corpusPath(corpus as never, 'client.ndjson'),
    ])
  ).events())
    events.push(analysis);
  const verdicts = replayGate(events);
  const expected = JSON.parse(readFileSync(corpusPath(corpus as never, 'expected.json'), 'utf8'));
  let n = 0;
  for (const e of events) {
    const x = expected.events[e.id];
    const got = {
      bucket: e.bucket,
      kind: e.kind,
      rule: (() => {
        try {
          return ruleNumber(e.rule);
        } catch {
          return e.rule;
        }
      })(),
      avoidable: verdicts.get(e.id)?.avoidable ?? false,
      identity: e.identity,
    };
    const want = { bucket: x.bucket, kind: x.kind, rule: x.rule, avoidable: x.avoidable, identity: x.identity };
    const diffs = Object.keys(want).filter(
      (k) => (got as any)[k] !== (want as any)[k] && !(k === 'kind' && x.kindFrom === 'proposed'),
    );
    if (diffs.length) {
      n++;
      console.log(
        e.id,
        e.rpcMethod,
        e.httpStatus,
        diffs.map((k) => `${k}: ${(got as any)[k]} → ${(want as any)[k]}`).join('; '),
        '|',
        x.avoidableWhy ?? '',
        x.questions ?? '',
      );
    }
  }
  console.log('differing', n, 'of', events.length);
});
