import { explain } from '../../shared/classify/explain.ts';
import type { Evidence } from '../../shared/classify/types.ts';
import { type Bucket, isBucket } from '../buckets.ts';

// Maps, not records: a reason or block is read from an answer, and a record would read `constructor` as a function.
const GATE_TEXT: ReadonlyMap<string, string> = new Map([
  ['after_refusal', 'The same request had been refused before. A correct client would not have sent it again.'],
  [
    'past_transient_budget',
    'The budget of 3 retries after a transient failure was already spent. A correct client would have stopped.',
  ],
  [
    'before_retry_after',
    'The server had asked this client to wait (Retry-After / resetsAt, or a successful answer whose text said it was rate limited), and the wait had not passed.',
  ],
  [
    'identical_after_ambiguous',
    'The same request had got an ambiguous answer. A correct client abstains instead of repeating it unchanged.',
  ],
]);

/** What each block of a refusal covers (shared/analysis/gate-types.ts GateBlock), for an after_refusal verdict. */
const BLOCK_TEXT: ReadonlyMap<string, string> = new Map([
  [
    'endpoint',
    'This endpoint (HTTP method and path) had been refused as not part of the contract. A correct client would not have sent anything to it again, whatever the body.',
  ],
  [
    'method',
    'This JSON-RPC method had been answered "method not found" on this path. A correct client would not have called it there again, whatever the params.',
  ],
  ['session', 'The same request had been refused in this session. A correct client starts a new session instead.'],
]);

/** The gate's verdict on one event, in words. */
export function gateText(avoidable: boolean, reason: string | null, blockedBy: string | null = null): string {
  if (!avoidable) return 'Needed: nothing the client had heard by then forbade this request.';
  const block = reason === 'after_refusal' && blockedBy !== null ? BLOCK_TEXT.get(blockedBy) : undefined;
  return (
    block ??
    (reason === null ? undefined : GATE_TEXT.get(reason)) ??
    'Avoidable: a correct client would not have sent it.'
  );
}

export interface EventExplanation {
  why: string;
  means: string;
  clientShould: string;
  /** The rule id and the field it read, for someone checking the rule table. */
  rule: string;
  evidence: string;
}

/** "Why this bucket, and what should the client have done?" for one stored event. */
export function explainEvent(event: { bucket: string; kind: string; rule: string; evidence: string }) {
  const bucket: Bucket = isBucket(event.bucket) ? event.bucket : 'ambiguous';
  const text = explain({ bucket, kind: event.kind, rule: event.rule, evidence: event.evidence as Evidence });
  return { ...text, rule: event.rule, evidence: event.evidence } satisfies EventExplanation;
}

/** What a kind of failure means and what a client does about it, without a rule (a storm's first failure). */
export function explainKind(bucket: Bucket, kind: string): { means: string; clientShould: string } {
  const { means, clientShould } = explain({ bucket, kind, rule: '', evidence: 'none' });
  return { means, clientShould };
}
