import { toAnalysisEvent } from '../../shared/analysis/from-event.ts';
import type { AnalysisEvent } from '../../shared/analysis/types.ts';
import { classify } from '../../shared/classify/index.ts';
import type { Classification, ServerPolicy } from '../../shared/classify/types.ts';
import { parseEventLine } from '../../shared/event.ts';
import { eventIdOf } from '../../shared/event-id.ts';
import { correlationOf } from '../../shared/frames.ts';
import { requestIdentity } from '../../shared/identity.ts';
import { readLines } from './read-lines.ts';

export interface OfflineEvent {
  classification: Classification;
  analysis: AnalysisEvent;
  correlation: string | null;
}

/**
 * A log read the way the server reads it (same validation, classification, identity and ids), streamed line by
 * line. Bad lines are reported on stderr and counted in `bad`.
 */
export async function* offlineEvents(
  log: string,
  policyFor: (server: string) => ServerPolicy,
  counts: { bad: number },
): AsyncGenerator<OfflineEvent> {
  for await (const { line, text } of readLines(log)) {
    const parsed = parseEventLine(text);
    if (!parsed.ok) {
      counts.bad++;
      process.stderr.write(`${log}:${line}: ${parsed.error.code}: ${parsed.error.message}\n`);
      continue;
    }
    const event = parsed.event;
    const classification = classify(event, policyFor(event.server));
    const analysis = toAnalysisEvent(event, classification, {
      id: eventIdOf(event),
      seq: line,
      identity: requestIdentity(event.server, event.request, event.protocol),
      counted: true,
    });
    yield { classification, analysis, correlation: correlationOf(event) };
  }
}
