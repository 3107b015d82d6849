import { counted, formatCount } from '../format.ts';

/**
 * Words for hidden failures (DOMAIN.md section 8): answers that look successful but whose text says the call failed,
 * and the lexical rule that showed each, named for what it found rather than by its identifier.
 */
export const TEXT_RULE_LABEL: Record<string, string> = {
  error_prefix: 'opens with an error',
  json_error_object: 'a JSON error object',
  rate_limit_sentence: 'says rate limited',
  rate_limit_delay: 'names a delay',
  named_target: 'names what to fix',
  unknown_tool: 'unknown tool',
  invalid_type: 'wrong argument type',
  invalid_value: 'invalid value',
  authentication: 'authentication',
  rate_limit: 'rate limit',
};

export function textRuleLabel(rule: string): string {
  return TEXT_RULE_LABEL[rule] ?? rule;
}

/** "3 hidden failures, 1 saying rate limited", or "no hidden failure". */
export function hiddenLine(hidden: { failures: number; throttles: number }): string {
  if (hidden.failures === 0) return 'no hidden failure';
  const failures = counted(hidden.failures, 'hidden failure');
  return hidden.throttles === 0 ? failures : `${failures}, ${formatCount(hidden.throttles)} saying rate limited`;
}
