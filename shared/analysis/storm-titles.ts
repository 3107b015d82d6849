/**
 * A storm's title names its actor and its fault (DOMAIN.md section 6): "prober probed 3 undeclared endpoints of
 * release-desk", "release-desk re-sent a denied sampling request 6 times to represent". What an operator reads
 * first, so it says what happened in their words, never ours.
 */
import { targetLabel } from './storm-facts.ts';
import type { StormKind } from './storm-model.ts';
import type { Attempts } from './storm-runs.ts';

interface Names {
  /** Who sent the attempts: the client, or the server for its own requests. */
  actor: string;
  counterpart: string;
  /** The partition's server, whichever side sent. */
  server: string;
}

/** A count as an operator reads it: 12,000, not 12000. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export function probeTitle(
  { actor, server }: Names,
  targets: readonly string[],
  undeclared: (target: string) => boolean,
  attempts: number,
  avoidable: number,
): string {
  const endpoints = targets.filter((t) => t.startsWith('["endpoint"'));
  const methods = targets.filter((t) => t.startsWith('["method"'));
  const parts: string[] = [];
  if (endpoints.length > 0) {
    const what = endpoints.every(undeclared) ? 'undeclared' : 'refused';
    parts.push(`${plural(endpoints.length, `${what} endpoint`)} (${endpoints.map(targetLabel).join(', ')})`);
  }
  if (methods.length > 0) {
    parts.push(`${plural(methods.length, 'method')} it does not support (${methods.map(targetLabel).join(', ')})`);
  }
  return `${actor} probed ${parts.join(' and ')} of ${server}: ${plural(attempts, 'attempt')}, ${count(avoidable)} avoidable`;
}

export function loopTitle(kind: StormKind, names: Names, a: Attempts): string {
  return kind === 'reconnect_loop' ? reconnectTitle(names, a) : retryTitle(names, a);
}

function reconnectTitle({ actor, server }: Names, a: Attempts): string {
  const endpoint = a.first.endpoint;
  const kinds = a.failedKinds.join(', ');
  if (a.eraLegacy) {
    return (
      `${actor} re-probed the protocol era of ${server} on every connect after it had shown itself 2025-only: ` +
      `${plural(a.n, 'server/discover probe')}, ${count(a.avoidable)} avoidable`
    );
  }
  if (a.neededAllTransient && a.anyTransient) {
    const tried = a.connects.map(([label, n]) => `${label} ×${n}`).join(', ');
    return (
      `${actor} kept reconnecting to a failing ${endpoint} of ${server}: ${plural(a.n, 'connection attempt')} ` +
      `(${tried}), ${count(a.avoidable)} avoidable`
    );
  }
  if (a.stream) {
    return (
      `${actor} re-opened a stream (${endpoint}) that ${server} keeps refusing (${kinds}): ` +
      `${plural(a.n, 'attempt')}, ${count(a.avoidable)} avoidable`
    );
  }
  return `${actor} reconnected ${plural(a.n, 'time')} to ${endpoint} of ${server} (${kinds}): ${count(a.avoidable)} avoidable`;
}

function retryTitle({ actor, counterpart, server }: Names, a: Attempts): string {
  const { first } = a;
  const resends = a.fresh - (first.continuation ? 0 : 1);
  const times = plural(resends, 'time');
  const what = first.what;
  if (first.kind === 'user_declined')
    return `${actor} re-sent ${what} to ${counterpart} ${times} after the user declined it`;
  if (first.bucket === 'refusal' && what === 'a sampling request') {
    return `${actor} re-sent a denied sampling request ${times} to ${counterpart}`;
  }
  switch (first.bucket) {
    case 'refusal':
      return `${actor} re-sent ${what} to ${counterpart} ${times} after it was refused (${first.kind})`;
    case 'throttled':
      return `${actor} re-sent ${what} to ${counterpart} ${times} before Retry-After elapsed`;
    case 'transient':
      return `${actor} retried ${what} against ${counterpart} ${times}, past the retry budget`;
    case 'ambiguous':
      return `${actor} re-sent ${what} to ${counterpart} ${times} after an ambiguous answer (${first.kind})`;
    default:
      if (first.kind === 'input_required') {
        return `${actor} ignored the input request of ${server} and re-sent ${what} ${times} without the answers`;
      }
      return `${actor} re-sent ${what} to ${counterpart} ${times}`;
  }
}
