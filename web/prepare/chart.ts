import { isBucket } from '../buckets.ts';
import { formatDay, formatHourMinute } from '../format.ts';

const DAY_MS = 86_400_000;

/**
 * The time axis of every chart: the time of day, with the date once the drawn span is longer than a day (a tick
 * reading "14:00" on a week's chart names seven moments).
 */
export function timeAxisLabel(from: number, to: number): (ms: number) => string {
  if (to - from > DAY_MS) return (ms) => `${formatDay(ms)} ${formatHourMinute(ms)}`;
  return formatHourMinute;
}

/** Okabe-Ito, as the buckets: told apart by people with colour blindness, in both themes. */
const PALETTE = ['#0072b2', '#cc79a7', '#009e73', '#56b4e9', '#e69f00', '#7f7f7f', '#d55e00'];
/** Okabe-Ito's yellow is faint on the light theme: a line gets it only once the others are taken. */
const LAST_RESORT = '#f0e442';

/**
 * Names whose colour says what they are: a bucket is its own colour (styles.css defines one variable per bucket,
 * light and dark), and trimmed context is drawn as the warning it is.
 */
function fixedColour(name: string): string | undefined {
  if (isBucket(name)) return `var(--${name})`;
  return name === 'trimmed' ? 'var(--throttled)' : undefined;
}

function hash(name: string): number {
  let h = 0;
  for (const char of name) h = (h * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return h;
}

/**
 * One colour per series name. A name with a meaning has its fixed colour; any other takes a palette colour picked by
 * the name, so a server keeps its colour when the groups beside it come and go or change order, and two series
 * in one chart share a colour only when there are more series than colours.
 */
export function seriesColours(names: readonly string[]): (name: string) => string {
  const colours = new Map<string, string>();
  const taken = new Set<number>();
  for (const name of [...names].sort()) {
    const fixed = fixedColour(name);
    if (fixed !== undefined) {
      colours.set(name, fixed);
      continue;
    }
    let slot = hash(name) % PALETTE.length;
    for (let tries = 0; taken.has(slot) && tries < PALETTE.length; tries++) slot = (slot + 1) % PALETTE.length;
    const free = !taken.has(slot);
    taken.add(slot);
    colours.set(name, free ? (PALETTE[slot] ?? LAST_RESORT) : LAST_RESORT);
  }
  return (name) => colours.get(name) ?? 'currentColor';
}

/** A step of a time chart: rows are evenly spaced, oldest first, and every other member a series may read. */
export interface TimeRow {
  start: number;
}

/** A series as a chart draws it: the row member it reads, what the legend and tooltip call it, its colour. */
export interface ChartSeries<Key extends string = string> {
  key: Key;
  name: string;
  colour: string;
}

/** The value axis: its width in pixels, how a tick reads, and optionally fixed bounds and ticks. */
export interface ValueAxis {
  width: number;
  format: (value: number) => string;
  domain?: [number, number | 'auto'];
  ticks?: number[];
  integers?: boolean;
}

/** A value drawn as a line across the chart, such as an alert rule's threshold. */
export interface Threshold {
  value: number;
  label: string;
  colour: string;
  dashed?: boolean;
}

export interface TooltipLine {
  label: string;
  value: string;
  /** The swatch beside the label, for a line that is a drawn series. */
  colour?: string;
  /** A sum of the lines above it, set apart. */
  total?: boolean;
}

/** What hovering one step shows: its time and its exact values, decided here so a chart only draws it. */
export interface TooltipContent {
  title: string;
  lines: TooltipLine[];
}
