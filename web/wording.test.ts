/**
 * The words on the screens are the operator's (STYLE.md): what a number means, never where the idea came from. The
 * texts the dashboard takes from shared code (why an event landed in its bucket, what a metric counts, what each of a
 * failure's facts says, the gate's verdict, the shipped alert rules) are held here to that.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { METRIC_INFO, METRICS } from '../shared/alerts/metrics.ts';
import { DEFAULT_RULES } from '../shared/alerts/rule.ts';
import { BUCKET_GUIDE, explainRule } from '../shared/classify/explain.ts';
import { KIND_INFO, KINDS } from '../shared/classify/kinds.ts';
import { RULES } from '../shared/classify/rules.ts';
import { BIT_LABEL, BIT_MEANING, BITS, factsOf } from './prepare/actionability.ts';
import { denialsHeadline } from './prepare/denials.ts';
import { gateText } from './prepare/explain-event.ts';

/** Research shorthand: the seeds and the paper the product was built from, and their private terms. */
const SHORTHAND = /\bseed\b|\bthe paper\b|dominat|decision store|\bcontrol view\b|\bbits?\b|\b[01]{6}\b/i;

function shownTexts(): [string, string][] {
  return [
    ...RULES.map(({ id }): [string, string] => [`rule ${id}`, explainRule(id)?.description ?? '']),
    ...Object.entries(BUCKET_GUIDE).flatMap(([bucket, guide]): [string, string][] => [
      [`bucket ${bucket}`, guide.means],
      [`bucket ${bucket}`, guide.clientShould],
    ]),
    ...KINDS.flatMap((kind): [string, string][] => [
      [`kind ${kind}`, KIND_INFO[kind].means],
      [`kind ${kind}`, KIND_INFO[kind].clientShould],
    ]),
    ...METRICS.flatMap((metric): [string, string][] => [
      [`metric ${metric}`, METRIC_INFO[metric].label],
      [`metric ${metric}`, METRIC_INFO[metric].help],
    ]),
    ...BITS.flatMap((bit): [string, string][] => [
      [`fact ${bit}`, BIT_LABEL[bit]],
      [`fact ${bit}`, BIT_MEANING[bit]],
    ]),
    ['facts', factsOf('111111')],
    ['denials', denialsHeadline(3)],
    ...['after_refusal', 'past_transient_budget', 'before_retry_after', 'identical_after_ambiguous'].map(
      (reason): [string, string] => [`gate ${reason}`, gateText(true, reason)],
    ),
    ...['endpoint', 'method', 'session'].map((block): [string, string] => [
      `gate block ${block}`,
      gateText(true, 'after_refusal', block),
    ]),
  ];
}

/** Every screen's source, comments left out: what it writes on the screen itself. */
function screenSources(): [string, string][] {
  const root = fileURLToPath(new URL('.', import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.tsx') && !file.includes('.test.'),
  );
  return files.map((file) => [
    file,
    readFileSync(join(root, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\{\/\*[\s\S]*?\*\/\}/g, '')
      .replace(/^\s*\/\/.*$/gm, ''),
  ]);
}

/** The research's names as a screen would print them: "seed 004", "D P C T E R", the paper's and our own terms. */
const SCREEN_SHORTHAND = /\b[Ss]eed 00\d|D P C T E R|[Dd]ecision store|\bDominates\b/;

describe('the words the screens write themselves', () => {
  it('carry no research shorthand', () => {
    const sources = screenSources();
    expect(sources.length).toBeGreaterThan(50);
    expect(sources.filter(([, text]) => SCREEN_SHORTHAND.test(text)).map(([file]) => file)).toEqual([]);
  });
});

describe('the words the screens take from shared code', () => {
  it('carry no research shorthand', () => {
    const texts = shownTexts();
    expect(texts.length).toBeGreaterThan(80);
    const offending = texts.filter(([, text]) => SHORTHAND.test(text));
    expect(offending).toEqual([]);
  });

  it('name no threshold in a shipped rule unless they name each of its thresholds', () => {
    for (const rule of DEFAULT_RULES) {
      const numbers = (rule.name.match(/\d+(\.\d+)?/g) ?? []).map(Number);
      const scale = METRIC_INFO[rule.metric].unit === 'ratio' ? 100 : 1;
      const thresholds = [rule.warning, rule.critical].flatMap((t) => (t === null ? [] : [t * scale]));
      const named = thresholds.filter((t) => numbers.includes(t));
      // "… at 20%" for a rule that is critical at 50 % showed "≥ 50 %" beside it, unexplained.
      expect({ name: rule.name, named: named.length }).toEqual({
        name: rule.name,
        named: named.length === 0 ? 0 : thresholds.length,
      });
    }
  });
});
