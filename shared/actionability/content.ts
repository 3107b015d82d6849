import type { TextReading } from '../result-text/read.ts';
import { type Reading, ReadingBuilder } from './profile.ts';

/**
 * The paper's content view: the control view plus what the answer's text says, read by the lexical rules of
 * shared/result-text (DOMAIN.md section 8). A statement of failure earns D; a cause the text names earns C and, as
 * every cause of the rule set selects one (repair the request, authenticate, wait), P; the tool, parameter or
 * credential it names earns T; the delay a rate-limit text asks for earns R. Nothing in text earns E: prose that
 * describes a repair is not the repair. A field of the frame keeps the evidence of a bit both earn.
 */
export function contentReading(control: Reading, text: TextReading): Reading {
  const b = new ReadingBuilder(control);
  const { failure, cause, throttle } = text;
  if (failure !== null) b.earn('D', failure.path, { rule: failure.rule, span: failure.span });
  if (cause !== null) {
    const named = { rule: cause.rule, span: cause.span };
    b.earn('P', cause.path, named);
    b.earn('C', cause.path, named);
    if (cause.target !== null) b.earn('T', cause.path, { rule: cause.target.rule, span: cause.target.span });
  }
  if (throttle?.delay != null && throttle.waitMs !== null) {
    b.earn('R', throttle.path, { rule: 'rate_limit_delay', span: throttle.delay });
  }
  return b.doneWithText();
}
