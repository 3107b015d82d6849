/**
 * Which host or bridge log a line is a line of (FORMATS.md's grammars), for detection from a log's first lines
 * (shared/proxy-logs/detect.ts votes with it). Continuation lines and stderr lines vote for nothing.
 */
export const HOST_FORMATS = [
  'claude-desktop',
  'vscode',
  'mcp-remote',
  'supergateway',
  'mcp-proxy',
  'claude-code',
  'cursor',
  'zed',
  'agentgateway',
  'librechat',
] as const;
export type HostFormat = (typeof HOST_FORMATS)[number];

/** Bridges' logs name no server (a bridge stands for one): their records are `--server`'s, else `unknown`. */
export const BRIDGE_FORMATS: readonly HostFormat[] = ['mcp-remote', 'supergateway', 'mcp-proxy'];
/** Host logs whose times are local without a zone: read in `--tz` / `?tz=` (default: the reading server's zone). */
/** LibreChat writes UTC with `Z` or a local time without one: the zone is asked for, used only for the latter. */
export const LOCAL_TIME_FORMATS: readonly HostFormat[] = ['vscode', 'cursor', 'librechat'];
/**
 * Host logs whose lines may carry no time (mcp-remote without --debug, supergateway, mcp-proxy, Claude Code's
 * --debug of 2025): stamped from `--start` / `?start=` in line order (default: the file's last change, the upload).
 */
export const UNTIMED_FORMATS: readonly HostFormat[] = ['mcp-remote', 'supergateway', 'mcp-proxy', 'claude-code'];

export function isHostFormat(format: string): format is HostFormat {
  return (HOST_FORMATS as readonly string[]).includes(format);
}

/** Claude Desktop's lines, every era: a UTC time, then a bracket (a level, or the server's name). */
const CLAUDE_DESKTOP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z \[[^\]]+\] /;
const VSCODE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \[(?:trace|debug|info|warning|error)\] /;
const CLAUDE_CODE = /^(?:\d{4}-\d{2}-\d{2}T[\d:.]+Z )?\[(?:DEBUG|ERROR|WARN|INFO)\] MCP server "/;
/** A member line of Claude Code's 2025 pretty-printed JSON array (`    "debug": "..."`); its brackets vote for nothing. */
const CLAUDE_CODE_ARRAY = /^ {4}"(?:debug|error|sessionId)": "/;
/** Cursor names its server by an id without spaces (`db10`, `user-github`); VS Code's prose has spaces there. */
const CURSOR = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \[(?:info|error|warning)\] [^:\s[\]]+: /;
/** Zed's `Zed.log`: a local time with its offset, then `[LEVEL]` (2025) or `LEVEL  [module]` (later). */
const ZED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?[+-]\d{2}:\d{2} (?:\[[A-Z]+\]|[A-Z]+ +\[[^\]]*\]) /;
/** agentgateway's access log: an ISO time, a lower-case level, a target, then logfmt pairs of the gateway's. */
const AGENTGATEWAY =
  /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})\s+[a-z]+\s+\S+\s.*\b(?:gateway|listener|route|http\.method)=/;
/** LibreChat's winston lines about MCP (docker compose's `NAME  | ` before them); its other lines vote for nothing. */
const LIBRECHAT = /^(?:\S+\s+\| )?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{3}Z)? [a-z]+: \[MCP\]/;
const MCP_REMOTE = /^(?:\[\d+\] |\[\d{4}-\d{2}-\d{2}T[\d:.]+Z\]\[\d+\] |\[DEBUG LOG ERROR\] )/;

export function hostFormatOfLine(text: string): HostFormat | null {
  if (text.startsWith('[supergateway] ')) return 'supergateway';
  if (text.startsWith('transport event {')) return 'mcp-proxy';
  if (CLAUDE_CODE.test(text) || CLAUDE_CODE_ARRAY.test(text)) return 'claude-code';
  if (LIBRECHAT.test(text)) return 'librechat';
  if (MCP_REMOTE.test(text)) return 'mcp-remote';
  if (CLAUDE_DESKTOP.test(text)) return 'claude-desktop';
  if (ZED.test(text)) return 'zed';
  if (AGENTGATEWAY.test(text)) return 'agentgateway';
  // Before VS Code's grammar, which a Cursor line also fits: Cursor names its server before a colon.
  if (CURSOR.test(text)) return 'cursor';
  if (VSCODE.test(text)) return 'vscode';
  return null;
}
