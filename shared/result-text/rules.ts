/**
 * The lexical rules that read the text of an answer (DOMAIN.md section 8): a small set, each named, each tuned for
 * precision over recall. A rule fires on a statement that the call failed or was throttled, never on prose that
 * mentions an error ("no errors found", "error handling improved", "the API has a rate limit"). Pure functions of
 * one string; where the string sits is the caller's business (shared/result-text/read.ts).
 */

/** Where a rule fired: its name and the text that made it fire. */
export interface TextHit<R extends string = string> {
  rule: R;
  span: string;
}

/** The failure statements: what earns D for a text with nothing typed beside it. */
export const FAILURE_RULES = ['error_prefix', 'json_error_object', 'rate_limit_sentence'] as const;
export type FailureRule = (typeof FAILURE_RULES)[number];

/** The causes a text can name; each selects a coarse policy too (repair, authenticate, wait). */
export const CAUSE_RULES = ['unknown_tool', 'invalid_type', 'invalid_value', 'authentication', 'rate_limit'] as const;
export type CauseRule = (typeof CAUSE_RULES)[number];

/** A cause read from text, and the target it names when it names one (a tool, a parameter, a credential). */
export interface CauseHit extends TextHit<CauseRule> {
  target: TextHit<'named_target'> | null;
}

const SPAN = 200;
const clip = (text: string): string => (text.length > SPAN ? `${text.slice(0, SPAN - 1)}…` : text);

/**
 * The rules read a text's opening only, and parse it as JSON only when it is small: a statement about the call comes
 * first and an error object is short, while a successful tool result may be megabytes that every answer would
 * otherwise pay a full scan (and a JSON parse) for.
 */
const OPENING = 2048;
const MAX_JSON = 4096;
const openingOf = (text: string): string => (text.length > OPENING ? text.slice(0, OPENING) : text);

/**
 * The text opens with a failure word and a colon ("Error:", "Failed:", "ERROR:"), or is one short line opening with
 * "Invalid" ("Invalid symbol", "Invalid arguments: ..."). Only the opening counts: "Fixed an error: ..." or a
 * document that mentions "Error:" further down is no statement about this call; nor is a tally ("Failed: 0").
 */
const PREFIX = /^(?:error|failed|failure|fatal)\s*:(?!\s*none\b)/i;
/** "Failed: 3, passed: 9": a tally of what a tool ran, not a statement about the call. */
const TALLY = /^fail(?:ed|ures?)\s*:\s*\d+\b/i;
const INVALID = /^Invalid\s+[A-Za-z_][\w-]*(?:\s+[A-Za-z_][\w-]*){0,3}\s*(?::|$)/;

export function errorPrefix(text: string): TextHit<'error_prefix'> | null {
  const opening = openingOf(text).trimStart();
  const firstLine = opening.split('\n', 1)[0] ?? '';
  if (PREFIX.test(opening) && !TALLY.test(opening)) return { rule: 'error_prefix', span: clip(firstLine.trim()) };
  if (firstLine.length <= SPAN && INVALID.test(firstLine.trim())) {
    return { rule: 'error_prefix', span: clip(firstLine.trim()) };
  }
  return null;
}

/** The text, trimmed, is one JSON object: what servers serialise into a text block. */
export function jsonObjectOf(text: string): Record<string, unknown> | null {
  if (text.length > MAX_JSON) return null;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Only "error": a `"status": "failed"` is as often the state of what a tool reports on (a job, a build, a payment)
 * as the state of the call.
 */
const FAILED_STATUS = /^error$/i;
const ERROR_MEMBER = /"(?:status"\s*:\s*"error"|error"\s*:\s*[^\sn]|(?:success|ok)"\s*:\s*false)/i;

/**
 * A JSON object in the text that reports an error: `"status": "error"`, `"success": false`, `"ok": false`,
 * or an `error` member that holds something (a string, an object; not null, false or ""). `{"errors": []}` and
 * `{"status": "ok"}` are no statement of failure.
 */
export function jsonErrorObject(text: string): TextHit<'json_error_object'> | null {
  // Most JSON in text blocks is a successful result: a scan for the members that could report an error spares
  // parsing it (the parse below decides).
  if (!ERROR_MEMBER.test(openingOf(text))) return null;
  const object = jsonObjectOf(text);
  if (object === null) return null;
  const status = object.status;
  const error = object.error;
  const holds =
    (typeof error === 'string' && error.trim().length > 0) ||
    (typeof error === 'object' && error !== null && Object.keys(error).length > 0);
  const fires =
    (typeof status === 'string' && FAILED_STATUS.test(status)) ||
    object.success === false ||
    object.ok === false ||
    holds;
  return fires ? { rule: 'json_error_object', span: clip(text.trim()) } : null;
}

/**
 * A statement that the caller is rate limited, in the text's first sentence (after an optional failure prefix):
 * "Rate limit exceeded", "rate limited, retry after 30 s", "You have been rate limited", "Too many requests",
 * "Quota exceeded". A description of a limit ("This endpoint is rate limited to 10 requests per second", "If the
 * rate limit is exceeded, ...") is not one: it names a rate or a condition instead of a state.
 */
const RATE_STATEMENT =
  /^(?:(?:error|failed|failure)\s*:\s*)?(?:(?:you(?:'re| are| have been)|request(?:s)? (?:is|are|was|were|has been|have been)) )?(?:rate[- ]?limit(?:ed)?|too many requests|quota)\b(?:\s+(?:has been |was |is )?(?:exceeded|reached|hit)\b|(?=[\s.,;:!)-]*(?:$|retry|try again|please|wait)))/i;

export function rateLimitSentence(text: string): TextHit<'rate_limit_sentence'> | null {
  const first = firstSentence(text);
  return RATE_STATEMENT.test(first) ? { rule: 'rate_limit_sentence', span: clip(first) } : null;
}

/** The first sentence: up to the first line break, or a full stop followed by a space. */
function firstSentence(text: string): string {
  const line = openingOf(text).trimStart().split('\n', 1)[0] ?? '';
  const stop = line.search(/\.\s/);
  return (stop === -1 ? line : line.slice(0, stop + 1)).trim();
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The delay a rate-limit text asks for, in milliseconds: "retry after 30 s", "try again in 2 minutes", "Retry-After:
 * 30", or a JSON object's `retry_after` / `retryAfter` (seconds). Null when it names none.
 */
const DELAY =
  /\b(?:retry|try again)(?:-after)?\s*(?:after|in|:)?\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?\b/i;

export function delayOf(text: string): { ms: number; span: string } | null {
  const object = jsonObjectOf(text);
  for (const member of ['retry_after', 'retryAfter', 'retry_after_seconds']) {
    const value = object?.[member];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
      return { ms: Math.round(value * 1000), span: `"${member}": ${value}` };
    }
  }
  const match = DELAY.exec(openingOf(text));
  if (match === null) return null;
  const unit = (match[2] ?? 's').toLowerCase();
  const per = unit.startsWith('ms') || unit.startsWith('milli') ? 'ms' : (unit[0] ?? 's');
  return { ms: Math.round(Number(match[1]) * (UNIT_MS[per] ?? 1000)), span: clip(match[0]) };
}

const IDENT = String.raw`[A-Za-z_][\w.\-/]*`;
const QUOTED = String.raw`['"\`](${IDENT})['"\`]`;
const TYPES = '(?:integer|int|number|string|boolean|bool|array|list|object)';

/** Each cause with its patterns; a pattern's first group, when it matched, is the target the text names. */
const CAUSES: readonly (readonly [CauseRule, readonly RegExp[]])[] = [
  [
    'unknown_tool',
    [
      new RegExp(String.raw`\bunknown tool\b\s*:?\s*['"\`]?(${IDENT})?`, 'i'),
      new RegExp(
        String.raw`\btool\s+['"\`]?(${IDENT})['"\`]?\s+(?:was\s+)?(?:not found|does not exist|is not available)`,
        'i',
      ),
      new RegExp(String.raw`\bno such tool\b\s*:?\s*['"\`]?(${IDENT})?`, 'i'),
    ],
  ],
  [
    'rate_limit',
    [
      /^(?:(?:error|failed|failure)\s*:\s*)?(?:you(?:'re| are| have been) )?(?:rate[- ]?limit|too many requests|quota)/i,
    ],
  ],
  [
    'authentication',
    [
      /\b(?:missing|invalid|expired) (api key|token|credentials?|access token|bearer token)\b/i,
      /\b(?:authentication|authori[sz]ation) (?:is )?required\b/i,
      /\b(?:unauthori[sz]ed|not authenticated)\b/i,
    ],
  ],
  [
    'invalid_value',
    [
      new RegExp(
        String.raw`(?:${QUOTED}|\b(${IDENT}))\s+(?:must be|should be)\s+(?:an?\s+)?(?:positive|non-negative|between|one of|greater|less|at least|at most|a valid)\b`,
        'i',
      ),
      new RegExp(String.raw`\b(${IDENT})\s+(?:'[^']*'\s+|"[^"]*"\s+)?is not a valid\b`, 'i'),
      /\b(?:is not a valid|out of range)\b/i,
      /^(?:(?:error|failed)\s*:\s*)?Invalid\s+(?!arguments?\b|params\b|parameters?\b|type\b)[A-Za-z_][\w-]*\s*$/i,
    ],
  ],
  [
    'invalid_type',
    [
      new RegExp(
        String.raw`(?:${QUOTED}|\b(${IDENT}))\s*:?\s+(?:must be|should be)\s+(?:an?\s+|of type\s+)?${TYPES}\b`,
        'i',
      ),
      /\bis not of type\b/i,
      /\binvalid (?:type|argument type)\b/i,
    ],
  ],
];

/** Error codes and slugs in a JSON object's `error` / `code` member, read as the causes they name. */
const CODE_CAUSES: readonly (readonly [CauseRule, RegExp])[] = [
  ['unknown_tool', /unknown[_ ]?tool|tool[_ ]?not[_ ]?found/i],
  ['rate_limit', /rate[_ ]?limit|too[_ ]?many[_ ]?requests|quota/i],
  ['authentication', /unauthori[sz]ed|unauthenticated|auth(?:entication)?[_ ](?:required|failed)/i],
  ['invalid_type', /invalid[_ ]?type|type[_ ]?error|invalid[_ ]?argument/i],
  ['invalid_value', /invalid[_ ]?value|out[_ ]?of[_ ]?range/i],
];

/** Where a JSON object names what to change. */
const TARGET_MEMBERS = ['field', 'target', 'param', 'parameter', 'argument', 'tool'];
/** A parameter the prose names outright ("for parameter 'walletAddress'"). */
const NAMED = new RegExp(String.raw`\b(?:parameter|argument|field|property)\s+${QUOTED}`, 'i');
/** Quoted words that are types, not names. */
const TYPE_WORD = new RegExp(`^${TYPES}$`, 'i');

/**
 * The cause a failure's text names, with the target when the same text names one. Read only for a text already known
 * to report a failure (a typed failure, or one of FAILURE_RULES fired): "invalid" in a success is no cause.
 */
export function causeOf(text: string): CauseHit | null {
  const object = jsonObjectOf(text);
  if (object !== null) {
    const fromCode = jsonCause(object);
    if (fromCode !== null) return fromCode;
  }
  const opening = openingOf(text);
  for (const [rule, patterns] of CAUSES) {
    for (const pattern of patterns) {
      const match = pattern.exec(opening);
      if (match === null) continue;
      const captured = match.slice(1).find((group) => group !== undefined && !TYPE_WORD.test(group));
      const named = NAMED.exec(opening)?.[1];
      const target = captured ?? named;
      return {
        rule,
        span: clip(match[0].trim()),
        target: target === undefined ? null : { rule: 'named_target', span: target },
      };
    }
  }
  return null;
}

function jsonCause(object: Record<string, unknown>): CauseHit | null {
  for (const member of ['error', 'code', 'type']) {
    const value = object[member];
    if (typeof value !== 'string') continue;
    const found = CODE_CAUSES.find(([, pattern]) => pattern.test(value));
    if (found === undefined) continue;
    const targetMember = TARGET_MEMBERS.find((name) => typeof object[name] === 'string' && object[name] !== '');
    const target = targetMember === undefined ? null : String(object[targetMember]);
    return {
      rule: found[0],
      span: `"${member}": "${clip(value)}"`,
      target: target === null ? null : { rule: 'named_target', span: target },
    };
  }
  return null;
}
