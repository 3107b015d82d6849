/**
 * Seed 004's actionability profile per failure (DOMAIN.md section 8), beside the classifier it resembles. Pure: it
 * runs at ingest for every event (api/services/ingest-classify.ts) and at read time for one event's evidence.
 */
import { readSignals } from '../classify/signals.ts';
import { type Bucket, isFailure } from '../classify/types.ts';
import type { LensEvent } from '../event.ts';
import { readAnswerText } from '../result-text/read.ts';
import { contentReading } from './content.ts';
import { controlReading } from './control.ts';
import { type Hidden, packViews, type Reading } from './profile.ts';
import { transportReading } from './transport.ts';

export * from './profile.ts';

export interface Actionability {
  control: Reading;
  transport: Reading;
  content: Reading;
  hidden: Hidden;
  /** A hidden throttle's wait in ms after the answer, when its text names one; null otherwise. */
  hiddenWaitMs: number | null;
}

/**
 * The readings of an event, or undefined when it did not fail. A failure is what the classifier calls one (any bucket
 * but `ok` and `pending`: an `error`, `isError`, an HTTP status of 400 or more, or a timeout), and a hidden one: a
 * result that none of those call failed but whose text states a failure (a success-shaped error). The hidden failure
 * earns nothing in the control or the transport view, as in the paper, and only what its text says in the content
 * view; its event keeps its bucket.
 */
export function actionabilityOf(event: LensEvent): Actionability | undefined {
  const signals = readSignals(event);
  const text = readAnswerText(event, signals.failed);
  const shaped = !signals.failed && text.failure !== null;
  if (!signals.failed && !shaped) return undefined;
  const control = controlReading(event, signals);
  const throttle = shaped && text.throttle !== null;
  return {
    control,
    transport: transportReading(event, control),
    content: contentReading(control, text),
    hidden: { failure: shaped, throttle },
    hiddenWaitMs: throttle ? (text.throttle?.waitMs ?? null) : null,
  };
}

/**
 * The stored form (the events table's `act_profile`) of an event classified into `bucket`: null for an event that
 * did not fail. A failed bucket keeps the profile; so does `ok` for a hidden failure only (the era probe's 400 is
 * `ok` by negotiation, an input request is no answer yet).
 */
export function storedProfile(event: LensEvent, bucket: Bucket): number | null {
  return packedOf(actionabilityOf(event), bucket);
}

/** storedProfile of a reading already made. */
export function packedOf(read: Actionability | undefined, bucket: Bucket): number | null {
  if (read === undefined || !(isFailure(bucket) || read.hidden.failure)) return null;
  const views = { control: read.control.profile, transport: read.transport.profile, content: read.content.profile };
  return packViews(views, read.hidden);
}

/** What shows a hidden failure: the rule that fired, the text it fired on and where, and a hidden throttle's wait. */
export interface HiddenFinding {
  rule: string;
  text: string;
  field: string;
  throttle: boolean;
  waitMs: number | null;
}

/** The finding of a hidden failure; null for any other reading. */
export function hiddenFinding(read: Actionability | undefined): HiddenFinding | null {
  const shown = read?.content.text?.D;
  const field = read?.content.evidence.D;
  if (read === undefined || !read.hidden.failure || shown === undefined || field === undefined) return null;
  return { rule: shown.rule, text: shown.span, field, throttle: read.hidden.throttle, waitMs: read.hiddenWaitMs };
}
