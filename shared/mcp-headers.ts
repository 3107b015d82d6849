import type { FieldWarning } from './event.ts';

/**
 * MCP 2026-07-28's request headers as a proxy logged them or a trace captured them (DOMAIN.md sections 9 and 10):
 * `Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version`, read into the native `http.mcpMethod`, `http.mcpName` and
 * `http.protocolVersion`. The access-log readers (shared/proxy-logs) and the OTLP mapping (shared/otlp) both read
 * them here, so a name means the same whichever log it came from.
 */
export interface McpHeaderFacts {
  mcpMethod?: string;
  mcpName?: string;
  protocolVersion?: string;
}

/** The headers' text as the log has it; absent ones undefined (each reader knows its own "absent": `-`, `""`, null). */
export interface McpHeaderText {
  method?: string;
  name?: string;
  protocolVersion?: string;
}

/**
 * The facts, with `Mcp-Name` decoded: a client sends a name that cannot ride in an ASCII header field (a tool or URI
 * with non-ASCII characters, control characters, leading or trailing spaces, or text that looks like the marker) as
 * `=?base64?{Base64 of its UTF-8}?=` (SEP-2243's value encoding), and the name is what the request's body carries.
 * A marker around something that is not Base64 of UTF-8 is kept as logged, with a warning: the server refuses such a
 * header (`-32020`), and the refused value is the evidence. Lengths are `validateEvent`'s to judge.
 */
export function readMcpHeaders(text: McpHeaderText, warnings: FieldWarning[]): McpHeaderFacts {
  const facts: McpHeaderFacts = {};
  if (text.method !== undefined) facts.mcpMethod = text.method;
  const name = text.name === undefined ? undefined : decodeMcpName(text.name);
  if (name === null) {
    warnings.push({
      field: 'http.mcpName',
      message: 'a =?base64?…?= value that is not Base64 of UTF-8; kept as logged',
    });
    facts.mcpName = text.name;
  } else if (name !== undefined && name.length > 0) {
    facts.mcpName = name;
  }
  if (text.protocolVersion !== undefined) facts.protocolVersion = text.protocolVersion;
  return facts;
}

/** The markers are lowercase and case-sensitive: `=?BASE64?…?=` is a literal name. */
const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** The standard alphabet, padded (the spec's own example has a `/`, so it is not the URL-safe one). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** An `Mcp-Name` value as the name it stands for; `null` when it wears the markers around no Base64 of UTF-8. */
export function decodeMcpName(value: string): string | null {
  if (!value.startsWith(PREFIX) || !value.endsWith(SUFFIX) || value.length < PREFIX.length + SUFFIX.length) {
    return value;
  }
  const payload = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!BASE64.test(payload)) return null;
  const binary = atob(payload);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}
