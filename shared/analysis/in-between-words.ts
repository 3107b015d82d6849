import type { DenialNotHeld } from './denials.ts';

/** What came between a denial's refusal and its answer, in the operator's words (the Denials panel, `lens report`). */
export interface InBetweenWords {
  text: string;
  /** Something came between: the reset that explains why the decision was not kept. */
  reset: boolean;
}

/**
 * The 2025 era asks whether a new session began; 2026-07-28 traffic, sessionless, whether the client re-probed the
 * server or came back as another client instance (DOMAIN.md section 10).
 */
export function inBetweenWords(d: Pick<DenialNotHeld, 'newSession' | 'reprobed' | 'restarted'>): InBetweenWords {
  if (d.newSession !== null) return { text: d.newSession ? 'new session' : 'same session', reset: d.newSession };
  const resets = [d.reprobed ? 're-probed' : null, d.restarted ? 'client restarted' : null].filter((w) => w !== null);
  if (resets.length > 0) return { text: resets.join(', '), reset: true };
  // A request without clientInfo names no instance: whether the client restarted cannot be told.
  return { text: d.restarted === null ? 'no re-probe, client unnamed' : 'no re-probe, same client', reset: false };
}
