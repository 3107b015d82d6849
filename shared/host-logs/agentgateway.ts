import { type Entry, EntryAssembler } from './entries.ts';
import { RecordWriter } from './records.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';

/**
 * agentgateway's access log (FORMATS.md "agentgateway"): `TS  level  request key=value ...`, one line per HTTP
 * request, logfmt values (quoted when they hold spaces). HTTP-level only: `http.method`, `http.path`,
 * `http.status`, `duration`, and for MCP traffic `mcp.method`, `mcp.target` (the backend: the record's server) and
 * `mcp.resource.name` (the tool). No JSON-RPC id, no JSON-RPC error code, no result: a JSON-RPC error or an
 * `isError` inside a 2xx is invisible, so a line answered below 400 is an unknown outcome (`outcome_unknown`, its
 * status kept), and only a status of 400 and above says how the request fared. The gateway's other lines (its
 * start, its LLM and plain HTTP routes) are about no MCP server: left out, counted in `notes`.
 *
 * The client is `--client`, else the line's source address without its port (one client, many connections).
 */
const HEAD = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))\s+([a-z]+)\s+(\S+)(.*)$/s;
const PAIR = /([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
const DURATION = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s)$/;
const PER_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000 };

export class AgentgatewayReader implements HostLogReader {
  private readonly entries = new EntryAssembler((text) => HEAD.test(text));
  private readonly out = new RecordWriter('agentgateway', () => true);
  private records = 0;
  private otherLines = 0;

  constructor(private readonly options: HostLogOptions) {}

  push(line: number, text: string): HostRead[] {
    return this.entries.push(line, text).flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  end(): HostRead[] {
    return this.entries.end().flatMap((step) => ('refused' in step ? [step] : this.entry(step.entry)));
  }

  notes(): string[] {
    const notes = [
      'agentgateway logs HTTP only: no JSON-RPC id, error code or result; a request answered below 400 has an ' +
        'unknown outcome (a JSON-RPC error or isError inside it is invisible)',
    ];
    if (this.otherLines > 0)
      notes.push(`${this.otherLines} lines about no MCP request (the gateway's own, LLM or HTTP routes) left out`);
    if (this.records === 0) notes.push('no MCP request line was found');
    return notes;
  }

  private entry(entry: Entry): HostRead[] {
    const first = entry.lines[0] as string;
    const head = HEAD.exec(first);
    const at = head === null ? Number.NaN : Date.parse(head[1] as string);
    const fields = head === null ? null : pairs(head[4] as string);
    const mcp = fields !== null && (fields.get('protocol') === 'mcp' || [...fields.keys()].some(isMcpKey));
    if (head === null || head[3] !== 'request' || fields === null || !mcp || Number.isNaN(at)) {
      this.otherLines += entry.lines.length;
      return [];
    }
    this.records++;
    const client = this.options.client ?? hostOf(fields.get('src.addr'));
    const server = this.options.server ?? fields.get('mcp.target') ?? 'unknown';
    const value = this.out.line({ client: client ?? '', server }, { line: entry.line, at, text: first });
    // The gateway's record of the request, as a reverse proxy's access log is.
    value.source = 'proxy';
    if (client === undefined) delete value.client;
    const status = Number(fields.get('http.status'));
    const http: Record<string, unknown> = {};
    const set = (member: string, key: string) => {
      const v = fields.get(key);
      if (v !== undefined && v !== '') http[member] = v;
    };
    set('method', 'http.method');
    set('path', 'http.path');
    set('mcpMethod', 'mcp.method');
    set('mcpName', 'mcp.resource.name');
    if (Number.isInteger(status) && status > 0) http.status = status;
    value.http = http;
    const latency = durationMs(fields.get('duration'));
    if (latency !== null) value.latencyMs = latency;
    value.hostlog = { line: entry.line };
    // Below 400 the status says the gateway answered, not how: the outcome is inside a body it does not log.
    if (typeof http.status !== 'number' || http.status < 400) {
      value.record = 'outcome_unknown';
      if (typeof http.status === 'number') value.hostlog = { line: entry.line, answered: true };
    }
    return [{ line: entry.line, value, warnings: [] }];
  }
}

function isMcpKey(key: string): boolean {
  return key.startsWith('mcp.');
}

/** The logfmt pairs of a line, quoted values unquoted. */
function pairs(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [, key, raw] of text.matchAll(PAIR)) {
    let value = raw as string;
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        value = value.slice(1, -1);
      }
    }
    fields.set(key as string, value);
  }
  return fields;
}

/** `10.0.0.7:24311` → `10.0.0.7`; `[::1]:5000` → `::1`. */
function hostOf(addr: string | undefined): string | undefined {
  if (addr === undefined || addr === '') return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(addr);
  if (bracketed !== null) return bracketed[1];
  const colon = addr.lastIndexOf(':');
  return colon > 0 && addr.indexOf(':') === colon ? addr.slice(0, colon) : addr;
}

function durationMs(text: string | undefined): number | null {
  const m = text === undefined ? null : DURATION.exec(text);
  return m === null ? null : Number(m[1]) * (PER_MS[m[2] as string] as number);
}
