import { BRIDGE_FORMATS, isHostFormat } from '../../../shared/host-logs/detect.ts';
import { LOG_FORMATS, type LogFormat } from '../../../shared/log-formats.ts';

/** Every format the API reads, in the order the format select lists them. */
export { LOG_FORMATS };

export const FORMAT_LABEL: Readonly<Record<LogFormat, string>> = {
  native: 'Refusal Lens NDJSON (native)',
  'nginx-json': 'nginx JSON access log',
  'nginx-combined': 'nginx combined access log',
  envoy: 'Envoy access log (default text format)',
  'envoy-json': 'Envoy JSON access log',
  'claude-desktop': 'Claude Desktop MCP log (mcp-server-NAME.log or mcp.log)',
  vscode: 'VS Code MCP output channel (local times: give the zone)',
  'mcp-remote': 'mcp-remote log (bridge; stderr or debug file)',
  supergateway: 'supergateway log (bridge, either side)',
  'mcp-proxy': 'mcp-proxy --debug log (bridge)',
  'claude-code': 'Claude Code MCP debug log (lifecycle only)',
  cursor: 'Cursor MCP log (lifecycle only; local times)',
  zed: 'Zed log, Zed.log (context servers; lifecycle only)',
  agentgateway: 'agentgateway access log (HTTP only)',
  librechat: 'LibreChat log, winston (frames it sends only; local times: give the zone)',
};

/** A host's or bridge's own log: read whole (a request and its answer are lines apart), its server named by you. */
export { isHostFormat };

/** A bridge's log: it names no server, so its records are the one typed, else "unknown". */
export function isBridgeFormat(format: LogFormat): boolean {
  return (BRIDGE_FORMATS as readonly string[]).includes(format);
}

export const PROTOCOL_LABEL: Readonly<Record<'mcp' | 'a2a', string>> = { mcp: 'MCP', a2a: 'A2A' };

/**
 * A reverse-proxy access log or a host's log: its lines carry no server or protocol of their own, the operator may
 * name them.
 */
export function isProxyFormat(format: LogFormat): boolean {
  return format !== 'native';
}

/** The one sentence that says what detection found in a file's first lines. */
export function detectionText(detected: LogFormat | null): string {
  return detected === null
    ? 'Format not detected: the first lines are none of the formats below. It will be sent as native NDJSON unless you choose another.'
    : `Detected: ${FORMAT_LABEL[detected]}`;
}

/** How one file is (or was) sent, in a few words: "nginx JSON access log · server release-desk · A2A". */
export function settingsText(settings: { format: LogFormat; server: string; protocol: '' | 'mcp' | 'a2a' }): string {
  const parts = [FORMAT_LABEL[settings.format]];
  if (isProxyFormat(settings.format)) {
    const server = settings.server.trim();
    const unnamed = isBridgeFormat(settings.format)
      ? 'server "unknown"'
      : isHostFormat(settings.format)
        ? 'server from the log'
        : 'server from discovery documents or host';
    parts.push(server === '' ? unnamed : `server ${server}`);
    if (settings.protocol !== '') parts.push(PROTOCOL_LABEL[settings.protocol]);
  }
  return parts.join(' · ');
}
