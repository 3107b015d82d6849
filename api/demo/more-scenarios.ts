import { type DemoWriter, failure, ok } from './scenarios.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Seed 002: a sampling request denied for good, re-presented 40+ times within ten minutes (twice today). */
export function representedDenial(w: DemoWriter): void {
  const params = {
    systemPrompt: 'You write release notes.',
    messages: [{ role: 'user', content: { type: 'text', text: 'Summarise every change since 2.3' } }],
    includeContext: 'allServers',
    maxTokens: 800,
  };
  const denial = {
    reason: 'policy.budget_exhausted',
    server: 'release-notes',
    retryable: false,
    resetsAt: '2026-12-01T00:00:00Z',
  };
  for (const start of [6 * HOUR, 9 * MINUTE]) {
    for (let i = 0; i < 44; i++) {
      const request = w.request('sampling/createMessage', { ...params, temperature: i % 2 ? 0.2 : 0.3 });
      w.call(
        w.at(start - i * 12_000),
        'agent-5',
        'release-notes',
        request,
        failure(request, -32003, 'Sampling denied', denial),
      );
    }
  }
}

/** A summariser whose sampling requests ask for all servers' context and are trimmed on most calls. */
export function trimmedContext(w: DemoWriter, rand: () => number): void {
  for (let t = 24 * HOUR; t > 0; t -= 4 * MINUTE + rand() * 4 * MINUTE) {
    const includeContext = rand() < 0.85 ? 'allServers' : 'thisServer';
    const request = w.request('sampling/createMessage', {
      messages: [{ role: 'user', content: { type: 'text', text: `digest ${Math.floor(t / HOUR)}` } }],
      includeContext,
      maxTokens: 400,
    });
    const context =
      rand() < 0.8
        ? { requested: includeContext, applied: 'none', reason: 'policy.max_scope' }
        : { requested: includeContext, applied: includeContext };
    const result = { role: 'assistant', content: { type: 'text', text: 'summary' }, model: 'm', _meta: { context } };
    w.call(w.at(t), 'agent-2', 'summarizer', request, ok(request, result));
  }
}

/** A batch worker throttled with Retry-After: 30 that retries after 5 s anyway, then waits properly. */
export function impatientThrottled(w: DemoWriter): void {
  for (const start of [18 * HOUR, 7 * HOUR, 40 * MINUTE]) {
    for (let i = 0; i < 6; i++) {
      const request = w.request('tools/call', { name: 'search.query', arguments: { q: `batch ${i}` } });
      w.call(w.at(start - i * 5_000), 'batch-worker', 'search', request, null, {
        http: { method: 'POST', path: '/mcp', status: 429, retryAfter: 30 },
      });
    }
    const late = w.request('tools/call', { name: 'search.query', arguments: { q: 'batch 0' } });
    w.call(w.at(start - 60_000), 'batch-worker', 'search', late, ok(late));
  }
}

/** Billing answers 503 in bursts; well-behaved clients back off 1, 2, 4 s and get through. */
export function transientBursts(w: DemoWriter): void {
  for (const start of [22 * HOUR, 13 * HOUR, 3 * HOUR]) {
    for (let c = 1; c <= 4; c++) {
      const args = { name: 'billing.invoice', arguments: { account: `acct-${c}` } };
      const delays = [0, 1_000, 3_000, 7_000];
      delays.forEach((delay, attempt) => {
        const request = w.request('tools/call', args);
        const last = attempt === delays.length - 1;
        w.call(w.at(start - c * 500 - delay), `agent-${c}`, 'billing', request, last ? ok(request) : null, {
          http: { method: 'POST', path: '/mcp', status: last ? 200 : 503 },
          latencyMs: last ? 40 : 900,
        });
      });
    }
    // One client ignores the budget and hammers on: the 5th attempt on is avoidable.
    for (let attempt = 0; attempt < 9; attempt++) {
      const request = w.request('tools/call', { name: 'billing.invoice', arguments: { account: 'acct-9' } });
      w.call(w.at(start - 300 - attempt * 400), 'agent-8', 'billing', request, null, {
        http: { method: 'POST', path: '/mcp', status: 503 },
        latencyMs: 800,
      });
    }
  }
}

/** An A2A planner: tasks that are gone are refusals, not retries. */
export function a2aPlanner(w: DemoWriter): void {
  for (let t = 20 * HOUR; t > 0; t -= 25 * MINUTE) {
    const send = w.request('message/send', {
      message: { role: 'user', parts: [{ kind: 'text', text: 'plan the week' }] },
    });
    w.call(w.at(t), 'agent-6', 'planner', send, ok(send, { kind: 'task', id: `task-${t}` }), {
      protocol: 'a2a',
      http: { method: 'POST', path: '/a2a/v1', status: 200 },
    });
    if ((t / (25 * MINUTE)) % 4 === 0) {
      const get = w.request('tasks/get', { id: 'task-expired' });
      w.call(w.at(t - 1_000), 'agent-6', 'planner', get, failure(get, -32001, 'Task not found'), {
        protocol: 'a2a',
        http: { method: 'POST', path: '/a2a/v1', status: 200 },
      });
    }
  }
}

/** The `_meta` a 2026-07-28 client puts on every request (DOMAIN.md section 10), as the TypeScript SDK v2 writes it. */
function meta2026(client: string) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
}

/** No session: 2026-07-28 has none. */
const STATELESS = { session: undefined };

const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

/**
 * A stateless (2026-07-28) server whose publish tool asks for a confirmation in a second round (MRTR): harbor-agent
 * probes with server/discover, answers the input request and gets its result; eager-bot ignores the request and
 * sends the same call again without the answers, a loop whose re-sends a correct client never sends.
 */
export function statelessPublisher(w: DemoWriter): void {
  const inputRequired = (item: string) => ({
    resultType: 'input_required',
    inputRequests: {
      confirm: {
        method: 'elicitation/create',
        params: { message: `Publish ${item}?`, requestedSchema: CONFIRM_SCHEMA, mode: 'form' },
      },
    },
    requestState: `v1.${item}`,
  });
  for (let t = 23 * HOUR; t > 0; t -= 20 * MINUTE) {
    const item = `r-${Math.floor(t / MINUTE)}`;
    const probe = w.request('server/discover', { _meta: meta2026('harbor-agent') });
    w.call(w.at(t), 'harbor-agent', 'atlas-notes', probe, ok(probe, { supportedVersions: ['2026-07-28'] }), STATELESS);
    const first = w.request('tools/call', { name: 'publish', arguments: { item }, _meta: meta2026('harbor-agent') });
    w.call(w.at(t - 200), 'harbor-agent', 'atlas-notes', first, ok(first, inputRequired(item)), STATELESS);
    const answered = w.request('tools/call', {
      name: 'publish',
      arguments: { item },
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: `v1.${item}`,
      _meta: meta2026('harbor-agent'),
    });
    const done = { content: [{ type: 'text', text: `Published ${item}` }], resultType: 'complete' };
    w.call(w.at(t - 900), 'harbor-agent', 'atlas-notes', answered, ok(answered, done), STATELESS);
  }
  for (const start of [11 * HOUR, 50 * MINUTE]) {
    for (let i = 0; i < 8; i++) {
      const call = w.request('tools/call', {
        name: 'publish',
        arguments: { item: 'r-7' },
        _meta: meta2026('eager-bot'),
      });
      w.call(w.at(start - i * 4_000), 'eager-bot', 'atlas-notes', call, ok(call, inputRequired('r-7')), STATELESS);
    }
  }
}

/**
 * A desktop host reaching its ticket server through a stdio bridge whose log shows each request but never its
 * outcome (ADR 18): the records count as "outcome not logged", never as successes.
 */
export function bridgedHost(w: DemoWriter): void {
  for (let t = 22 * HOUR; t > 0; t -= 15 * MINUTE) {
    const call = w.request('tools/call', { name: 'tickets.search', arguments: { q: `open ${t % 13}` } });
    w.call(w.at(t), 'desk-host', 'tickets', call, null, {
      record: 'outcome_unknown',
      http: undefined,
      session: undefined,
    });
  }
}
