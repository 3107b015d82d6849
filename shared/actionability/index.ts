/**
 * Seed 004's actionability profile per failure (DOMAIN.md section 8), beside the classifier it resembles. Pure: it
 * runs at ingest for every failed event (api/services/ingest-classify.ts) and at read time for one event's evidence.
 */
import { readSignals } from '../classify/signals.ts';
import type { LensEvent } from '../event.ts';
import { controlReading } from './control.ts';
import { packViews, type Reading } from './profile.ts';
import { transportReading } from './transport.ts';

export * from './profile.ts';

export interface Actionability {
  control: Reading;
  transport: Reading;
}

/**
 * Both readings of an event, or undefined when it did not fail. A failure is what the classifier calls one (any bucket
 * but `ok`): an `error`, `isError`, an HTTP status of 400 or more, or a timeout. So a success-shaped error (a result
 * whose text says it failed) is a failure only when the exchange says so outside the frame (its status); then it
 * earns nothing in the control view, as in the paper.
 */
export function actionabilityOf(event: LensEvent): Actionability | undefined {
  const signals = readSignals(event);
  if (!signals.failed) return undefined;
  const control = controlReading(event, signals);
  return { control, transport: transportReading(event, control) };
}

/** The stored form (the events table's `act_profile`): null for an event that did not fail. */
export function storedProfile(event: LensEvent): number | null {
  const read = actionabilityOf(event);
  return read === undefined ? null : packViews(read.control.profile, read.transport.profile);
}
