import { cancelledRequest, type Kept, type Message, type RpcId } from './messages.ts';

/** Who wrote a message: the host (client) or the server. */
export type Sender = 'client' | 'server';

export interface Sent {
  /** Epoch milliseconds when the recorder saw it. */
  at: number;
  kept: Kept;
}

/** One request and what became of it. */
export interface Call {
  /** Who sent the request: a server's `sampling/createMessage` or `roots/list` is the server's (DOMAIN.md section 6). */
  sender: Sender;
  method: string;
  request: Sent;
  response?: Sent;
  latencyMs?: number;
  /** No answer within the bound, an answer after it, the requester's cancel, or the answerer gone. */
  timeout: boolean;
  /** The reason of the requester's `notifications/cancelled`, when it sent one ("" when it gave none). */
  cancelled?: string;
}

interface Open {
  sender: Sender;
  method: string;
  request: Sent;
  cancelled?: string;
}

/** Requests held open at once, per direction, before the oldest is given up: no peer keeps more in flight. */
const MAX_OPEN = 10_000;

/**
 * Pairs the requests of both directions with their answers by id. The two directions have their own id spaces (the
 * host's id 1 and the server's id 1 are different requests), so a response pairs with the open request of the
 * other side. A request is done when answered, when `boundMs` passed without an answer (`expire`), or when the
 * stream ends (`drain`); a cancelled request stays open for a late answer until then, and is a timeout either way.
 */
export class Pairing {
  private readonly open: Record<Sender, Map<string, Open>> = { client: new Map(), server: new Map() };
  /** Answers that matched no open request (late ones after the bound, or answers to nothing). */
  unmatched = 0;

  constructor(private readonly boundMs: number) {}

  /** Reads one message; answers the calls it completed. */
  see(sender: Sender, message: Message, at: number): Call[] {
    if (message.kind === 'request') {
      const open = this.open[sender];
      const key = keyOf(message.id);
      const done: Call[] = [];
      // An id used again while open: the first request will never be answered now.
      const reused = open.get(key);
      if (reused !== undefined) done.push(this.close(reused));
      open.delete(key);
      open.set(key, { sender, method: message.method, request: { at, kept: message.kept } });
      if (open.size > MAX_OPEN) {
        const [oldest, first] = open.entries().next().value as [string, Open];
        open.delete(oldest);
        done.push(this.close(first));
      }
      return done;
    }
    if (message.kind === 'response') {
      const answered = other(sender);
      const key = keyOf(message.id);
      const open = this.open[answered].get(key);
      if (open === undefined) {
        this.unmatched++;
        return [];
      }
      this.open[answered].delete(key);
      return [this.close(open, { at, kept: message.kept })];
    }
    if (message.kind === 'notification' && message.method === 'notifications/cancelled') {
      const cancel = cancelledRequest(message.kept);
      const open = cancel === null ? undefined : this.open[sender].get(keyOf(cancel.id));
      if (open !== undefined && cancel !== null) open.cancelled = cancel.reason ?? '';
    }
    return [];
  }

  /**
   * Ends an open request of `sender` now, when the transport says it is over: answered by `response` (an answer that
   * names no id, such as an HTTP error body), by a failing HTTP status alone (`byStatus`: no timeout), or not at all.
   */
  settle(
    sender: Sender,
    id: RpcId,
    { response, byStatus = false }: { response?: Sent; byStatus?: boolean } = {},
  ): Call | undefined {
    const key = keyOf(id);
    const open = this.open[sender].get(key);
    if (open === undefined) return undefined;
    this.open[sender].delete(key);
    const call = this.close(open, response);
    if (response === undefined && byStatus && open.cancelled === undefined) call.timeout = false;
    return call;
  }

  /** The requests still unanswered `boundMs` after they were sent, as timeouts. */
  expire(now: number): Call[] {
    const done: Call[] = [];
    for (const open of Object.values(this.open)) {
      for (const [key, call] of open) {
        if (now - call.request.at < this.boundMs) continue;
        open.delete(key);
        done.push(this.close(call));
      }
    }
    return done.sort((a, b) => a.request.at - b.request.at);
  }

  /** Every request still open, as a timeout: the stream ended before they were answered. */
  drain(): Call[] {
    const done = [...this.open.client.values(), ...this.open.server.values()].map((call) => this.close(call));
    this.open.client.clear();
    this.open.server.clear();
    return done.sort((a, b) => a.request.at - b.request.at);
  }

  /** Whether `sender`'s request `id` is open: which of two connections sharing an id space a message belongs to. */
  isOpen(sender: Sender, id: RpcId): boolean {
    return this.open[sender].has(keyOf(id));
  }

  /**
   * The id of `sender`'s latest request still open and not cancelled: what a log's `notifications/cancelled` names
   * when the log does not show its params (mcp-remote without --debug).
   */
  latestOpen(sender: Sender): RpcId | undefined {
    let latest: RpcId | undefined;
    for (const open of this.open[sender].values()) {
      if (open.cancelled !== undefined) continue;
      const kept = open.request.kept;
      const id = 'frame' in kept ? kept.frame.id : kept.omitted.id;
      if (typeof id === 'string' || typeof id === 'number') latest = id;
    }
    return latest;
  }

  get size(): number {
    return this.open.client.size + this.open.server.size;
  }

  private close(open: Open, response?: Sent): Call {
    const call: Call = { sender: open.sender, method: open.method, request: open.request, timeout: true };
    if (open.cancelled !== undefined) call.cancelled = open.cancelled;
    if (response === undefined) return call;
    call.response = response;
    call.latencyMs = Math.max(0, response.at - open.request.at);
    call.timeout = open.cancelled !== undefined || call.latencyMs > this.boundMs;
    return call;
  }
}

function other(sender: Sender): Sender {
  return sender === 'client' ? 'server' : 'client';
}

/** `1` and `"1"` are different ids. */
function keyOf(id: RpcId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}
