/** Display formats. Times are UTC everywhere, like the gate's own explanations ("refused at 10:00:01"). */

const COUNT = new Intl.NumberFormat('en-US');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function formatCount(value: number): string {
  return COUNT.format(value);
}

/** A file size: 812 B, 12.4 KiB, 3.0 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A share in [0, 1] as a percentage; null (nothing to divide) shows as a dash, never as 0 %. */
export function formatShare(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '–';
  const percent = value * 100;
  if (percent > 0 && percent < 0.1) return '<0.1 %';
  if (percent > 99.9 && percent < 100) return '>99.9 %';
  return `${percent >= 10 || percent === 0 ? percent.toFixed(0) : percent.toFixed(1)} %`;
}

export { shareOf } from '../shared/share.ts';

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** 18:02:57 (UTC). */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** 18:02:57.601 (UTC): attempts of a loop can be milliseconds apart. */
export function formatTimeMs(ms: number): string {
  return `${formatTime(ms)}.${String(new Date(ms).getUTCMilliseconds()).padStart(3, '0')}`;
}

/** 18:02 (UTC). */
export function formatHourMinute(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** 30 Nov (UTC). */
export function formatDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()] ?? ''}`;
}

/** A window: "30 Nov 18:00 – 18:05 UTC", the end's date said only when it falls on another day. */
export function formatWindow(from: number, to: number): string {
  const sameDay = formatDay(from) === formatDay(to - 1);
  const end = sameDay ? formatHourMinute(to) : `${formatDay(to)} ${formatHourMinute(to)}`;
  return `${formatDay(from)} ${formatHourMinute(from)} – ${end} UTC`;
}

/** 30 Nov 18:02:57 UTC. */
export function formatDateTime(ms: number): string {
  return `${formatDay(ms)} ${formatTime(ms)} UTC`;
}

/** A span in the largest two units that matter: 850 ms, 3.2 s, 2 min 41 s, 5 min, 10 h 5 min, 2 d 3 h. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const total = Math.round(seconds);
  const [d, h, m, s] = [
    Math.floor(total / 86400),
    Math.floor(total / 3600) % 24,
    Math.floor(total / 60) % 60,
    total % 60,
  ];
  // A whole minute is "5 min", not "5 min 0 s".
  const two = (big: string, small: number, unit: string) => (small === 0 ? big : `${big} ${small} ${unit}`);
  if (d > 0) return two(`${d} d`, h, 'h');
  if (h > 0) return two(`${h} h`, m, 'min');
  return two(`${m} min`, s, 's');
}

/** How long ago, coarse and in words: "just now", "4 min ago", "1 hour ago", "3 days ago". */
export function formatAgo(ms: number, now: number): string {
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${counted(hours, 'hour')} ago`;
  return `${counted(Math.floor(hours / 24), 'day')} ago`;
}

/** A count with its noun agreeing: "1 request", "12,000 requests", "2 identities" (give the plural when not -s). */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : plural}`;
}

/** `release-notes:5dca032b…`: the server and enough of the digest to tell identities apart. */
export function shortIdentity(identity: string): string {
  const colon = identity.lastIndexOf(':');
  if (colon < 0) return identity.length > 12 ? `${identity.slice(0, 12)}…` : identity;
  return `${identity.slice(0, colon)}:${shortDigest(identity)}`;
}

/** An identity's digest alone, shortened: where the server goes without saying (its own page). */
export function shortDigest(identity: string): string {
  const digest = identity.slice(identity.lastIndexOf(':') + 1);
  return digest.length > 8 ? `${digest.slice(0, 8)}…` : digest;
}
