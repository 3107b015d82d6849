import { profileString, unpackViews } from '../../shared/actionability/profile.ts';
import { createGateState, gateStep, type KeyGateState, stepsInOrder } from '../../shared/analysis/gate.ts';
import { type Bucket, isFailure } from '../../shared/classify/types.ts';
import { OfflineRun, REORDER_HOLD_MS } from './offline.ts';
import { LineWriter } from './output.ts';
import { CACHED_ENTRIES, SpillStore, spilledRecord } from './spill.ts';

/**
 * Offline classification, one JSON line per event on stdout, in time order, in constant memory: what the event was
 * (when, who to whom, the JSON-RPC method, the HTTP request, status and code) beside its verdict. `avoidable` comes
 * from the gate replayed as the logs are read (OfflineRun.events merges them by time): an event still earlier than
 * one already judged for its client and server gets `avoidable: null` rather than a guess.
 * Bad lines are reported on stderr and make the exit code 1 once every file has been read.
 */
/**
 * `pending` for an input request (the call goes on), `unknown` where the log shows no outcome (ADR 18), `failed` for
 * a failure, `ok` for an answer.
 */
function outcomeOf(bucket: Bucket): 'ok' | 'pending' | 'unknown' | 'failed' {
  if (bucket === 'pending' || bucket === 'unknown') return bucket;
  return isFailure(bucket) ? 'failed' : 'ok';
}

export async function classifyCommand(args: string[]): Promise<number> {
  const run = await OfflineRun.fromArgs('classify', args);
  const out = new LineWriter();
  const spill = new SpillStore();
  const gateKeys = spill.map<KeyGateState>('gate_keys', CACHED_ENTRIES);
  const gate = createGateState(() => spilledRecord(gateKeys));
  let outOfOrder = 0;
  for await (const { classification, analysis, profile, hidden, partner } of run.events()) {
    const { bucket, kind, rule, evidence } = classification;
    let avoidable: boolean | null = null;
    let readFromText = false;
    if (stepsInOrder(gate, analysis)) {
      const verdict = gateStep(gate, analysis);
      avoidable = verdict.avoidable;
      readFromText = verdict.readFromText === true;
    } else outOfOrder++;
    const line = {
      id: analysis.id,
      ts: new Date(analysis.ts).toISOString(),
      source: analysis.source,
      client: analysis.client,
      server: analysis.server,
      method: analysis.rpcMethod,
      http: analysis.httpMethod === null ? null : `${analysis.httpMethod} ${analysis.httpPath ?? ''}`.trimEnd(),
      status: analysis.httpStatus,
      code: analysis.rpcCode,
      // A proxy's line of a request its client logged too: counted once, as that record.
      ...(partner !== null && { partner }),
      bucket,
      kind,
      rule,
      evidence,
      // MCP 2026-07-28 (DOMAIN.md section 10): how the call stands, whether this round answers an input request, and
      // the era the request was sent in.
      outcome: outcomeOf(bucket),
      continuation: analysis.continuation,
      era: analysis.era,
      identity: analysis.identity,
      avoidable,
      // Avoidable because a hidden throttle's text named a wait that had not elapsed.
      ...(readFromText && { throttleReadFromText: true }),
      // The control view's profile of a failure (seed 004's D/P/C/T/E/R); `lens report` has every view's counts.
      ...(profile !== null && { profile: profileString(unpackViews(profile).control) }),
      // A success whose text says it failed: the rule and the text that show it (its bucket stays what typed fields say).
      ...(hidden !== null && { hidden }),
    };
    await out.write(JSON.stringify(line));
  }
  await out.flush();
  spill.close();
  if (outOfOrder > 0) {
    run.note(
      `${outOfOrder} event(s) out of time order beyond the ${REORDER_HOLD_MS / 1000} s reorder window: their "avoidable" is null`,
    );
  }
  return run.finish();
}
