import { parseArgs } from 'node:util';
import { createGateState, gateStep, stepsInOrder } from '../../shared/analysis/gate.ts';
import { CliError } from './cli-error.ts';
import { loadDiscoveryFile } from './discovery-file.ts';
import { offlineEvents } from './offline.ts';
import { LineWriter } from './output.ts';

/**
 * Offline classification, one JSON line per event on stdout, in constant memory. `avoidable` comes from the gate
 * replayed as the log is read, so it is exact for a log in time order per client and server; an event earlier than
 * one already read for its client and server gets `avoidable: null` (and a warning): `report` sorts first.
 * Bad lines are reported on stderr and make the exit code 1 once the whole file has been read.
 */
export async function classifyCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { discovery: { type: 'string' } },
  });
  if (values.discovery === undefined || positionals.length !== 1) {
    throw new CliError('usage: classify --discovery FILE LOG.ndjson', 2);
  }
  const policyFor = await loadDiscoveryFile(values.discovery);
  const out = new LineWriter();
  const counts = { bad: 0 };
  const gate = createGateState();
  let outOfOrder = 0;
  for await (const { classification, analysis } of offlineEvents(positionals[0] as string, policyFor, counts)) {
    const { bucket, kind, rule, evidence } = classification;
    let avoidable: boolean | null = null;
    if (stepsInOrder(gate, analysis)) avoidable = gateStep(gate, analysis).avoidable;
    else outOfOrder++;
    const line = { id: analysis.id, bucket, kind, rule, evidence, identity: analysis.identity, avoidable };
    await out.write(JSON.stringify(line));
  }
  await out.flush();
  if (outOfOrder > 0) {
    process.stderr.write(`lens classify: ${outOfOrder} event(s) out of time order: their "avoidable" is null\n`);
  }
  if (counts.bad > 0) process.stderr.write(`lens classify: ${counts.bad} line(s) could not be read as events\n`);
  return counts.bad > 0 ? 1 : 0;
}
