import { parseArgs } from 'node:util';
import { classify } from '../../shared/classify/index.ts';
import { parseEventLine } from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';
import { requestIdentity } from '../../shared/identity.ts';
import { CliError } from './cli-error.ts';
import { loadDiscoveryFile } from './discovery-file.ts';
import { LineWriter } from './output.ts';
import { readLines } from './read-lines.ts';

/**
 * Offline classification, one JSON line per event on stdout. Bad lines are reported on stderr and make the exit code
 * 1 once the whole file has been read, so a CI job sees them without losing the rest.
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
  const log = positionals[0] as string;
  const out = new LineWriter();
  let bad = 0;
  for await (const { line, text } of readLines(log)) {
    const parsed = parseEventLine(text);
    if (!parsed.ok) {
      bad++;
      process.stderr.write(`${log}:${line}: ${parsed.error.code}: ${parsed.error.message}\n`);
      continue;
    }
    const event = parsed.event;
    const { bucket, kind, rule, evidence } = classify(event, policyFor(event.server));
    const identity = requestIdentity(event.server, event.request);
    await out.write(JSON.stringify({ id: eventIdOf(event, text), bucket, kind, rule, evidence, identity }));
  }
  await out.flush();
  if (bad > 0) process.stderr.write(`lens classify: ${bad} line(s) could not be read as events\n`);
  return bad > 0 ? 1 : 0;
}
