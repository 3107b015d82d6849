import type { LensEvent } from '../event.ts';
import {
  type CauseHit,
  causeOf,
  delayOf,
  errorPrefix,
  type FailureRule,
  jsonErrorObject,
  rateLimitSentence,
  type TextHit,
} from './rules.ts';

/** A text of the answer and where it sits, as a dotted path from the event (`response.result.content[0].text`). */
export interface PlacedText {
  path: string;
  text: string;
}

export type Placed<T> = T & { path: string };

/** What the lexical rules read in an answer's text. */
export interface TextReading {
  /** The first statement that the call failed; null when no text makes one. */
  failure: Placed<TextHit<FailureRule>> | null;
  /** The cause a text names (with its target), read only where the call failed; null when none. */
  cause: Placed<CauseHit> | null;
  /** The text says the caller is rate limited: with the delay it asks for, when it names one. */
  throttle: Placed<{ span: string; waitMs: number | null; delay: string | null }> | null;
}

const EMPTY: TextReading = { failure: null, cause: null, throttle: null };

type Json = Record<string, unknown>;
const asRecord = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

/**
 * The texts a client's model reads: a result's text blocks (`result.content[i].text`, MCP's tool results) and an
 * error frame's message. A resource's contents, a sampling answer or an A2A message are documents or model output,
 * not the server's word on the call, so they are not read.
 */
export function answerTexts(event: LensEvent): PlacedText[] {
  const texts: PlacedText[] = [];
  const error = asRecord(event.response?.error);
  if (typeof error?.message === 'string') texts.push({ path: 'response.error.message', text: error.message });
  if (typeof error?.data === 'string') texts.push({ path: 'response.error.data', text: error.data });
  const content = asRecord(event.response?.result)?.content;
  if (!Array.isArray(content)) return texts;
  content.forEach((block, i) => {
    const text = asRecord(block);
    if (text?.type === 'text' && typeof text.text === 'string') {
      texts.push({ path: `response.result.content[${i}].text`, text: text.text });
    }
  });
  return texts;
}

/**
 * Reads an answer's texts with the rules of shared/result-text/rules.ts. `failed` says whether the call failed by its
 * typed fields or exchange: then its text's cause is read whatever the text opens with; otherwise a cause is read
 * only from a text that states a failure, so "invalid" in a successful answer names nothing.
 */
export function readAnswerText(event: LensEvent, failed: boolean): TextReading {
  const texts = answerTexts(event);
  if (texts.length === 0) return EMPTY;
  let failure: TextReading['failure'] = null;
  let throttle: TextReading['throttle'] = null;
  let cause: TextReading['cause'] = null;
  for (const { path, text } of texts) {
    const stated = rateLimitSentence(text) ?? jsonErrorObject(text) ?? errorPrefix(text);
    if (stated !== null && failure === null) failure = { ...stated, path };
    if (stated === null && !failed) continue;
    const named = causeOf(text);
    if (named !== null && cause === null) cause = { ...named, path };
    const limited = stated?.rule === 'rate_limit_sentence' || named?.rule === 'rate_limit';
    if (limited && throttle === null) {
      const delay = delayOf(text);
      throttle = { path, span: (stated ?? named)?.span ?? '', waitMs: delay?.ms ?? null, delay: delay?.span ?? null };
    }
  }
  return { failure, cause, throttle };
}
