/**
 * What each log format can show of an outcome (issue 37 item 3): the note the dashboard puts beside the records a
 * format gave, where the format cannot show what became of a request. Native NDJSON (null) and Claude Desktop's
 * logs carry whole frames; the others lose some or all of it (DOMAIN.md section 9, FORMATS.md).
 */
const ACCESS_LOG =
  'an access log has no JSON-RPC body: a tool error (isError) or a JSON-RPC error inside an HTTP 200 is not shown';

const NOTES: Readonly<Record<string, string>> = {
  'nginx-json': ACCESS_LOG,
  'nginx-combined': ACCESS_LOG,
  envoy: ACCESS_LOG,
  'envoy-json': ACCESS_LOG,
  'mcp-remote':
    'mcp-remote never logs an outcome (no result, no isError; JSON-RPC errors only with --debug), nor the answers it makes up itself',
  supergateway:
    "supergateway's client side prints frames cut to [Object]: a tool error's text, and so its kind, is not shown",
  'mcp-proxy': 'mcp-proxy logs no request, and none of those it answers itself (ping, a method the server lacks)',
  vscode: 'VS Code logs frames only at Debug level: at its default level no request or outcome is shown',
  'claude-code': "Claude Code logs a server's lifecycle only: its connection attempts, no request and no outcome",
  cursor: "Cursor logs a server's lifecycle only: no request and no outcome",
  zed: "Zed logs a context server's start and stderr only: no request, and not whether it connected",
  agentgateway:
    'agentgateway logs HTTP only: a tool error (isError) or a JSON-RPC error inside a status below 400 is not shown, so its outcome is unknown',
  librechat:
    'LibreChat logs only the frames it sends: no answer, so a request is of unknown outcome unless LibreChat cancelled it',
};

/**
 * The records a server page's "where its records came from" reads at most: the newest of the range. Each is a row read
 * by the (server, ts) index, a page of its own on PostgreSQL where a server's rows lie among the others': 50,000 took
 * 420-520 ms at 2M events there (87-209 ms on SQLite), the rest of the page 50. The shares of 2,000 are within 2.2
 * points of the whole's at 95 %, and the panel says it read a sample.
 */
export const SOURCE_SAMPLE = 2_000;

export const SOURCE_LABELS: Readonly<Record<string, string>> = {
  'nginx-json': 'nginx JSON access log',
  'nginx-combined': 'nginx combined access log',
  envoy: 'Envoy access log',
  'envoy-json': 'Envoy JSON access log',
  'claude-desktop': 'Claude Desktop log',
  vscode: 'VS Code MCP output',
  'mcp-remote': 'mcp-remote log',
  supergateway: 'supergateway log',
  'mcp-proxy': 'mcp-proxy log',
  'claude-code': 'Claude Code log',
  cursor: 'Cursor MCP log',
  zed: 'Zed log',
  agentgateway: 'agentgateway access log',
  librechat: 'LibreChat log',
};

/** Where a format cannot show outcomes, what it misses; null where its records carry whole frames. */
export function sourceNote(format: string | null): string | null {
  return format === null ? null : (NOTES[format] ?? null);
}

/** A format in the operator's words: native NDJSON (null) included. */
export function sourceLabel(format: string | null): string {
  return format === null ? 'native NDJSON (a client record, lens tap)' : (SOURCE_LABELS[format] ?? format);
}
