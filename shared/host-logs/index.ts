import { AgentgatewayReader } from './agentgateway.ts';
import { ClaudeDesktopReader } from './claude-desktop.ts';
import type { HostFormat } from './detect.ts';
import { LibreChatReader } from './librechat.ts';
import { LifecycleReader } from './lifecycle.ts';
import { McpProxyReader } from './mcp-proxy.ts';
import { McpRemoteReader } from './mcp-remote.ts';
import { SupergatewayReader } from './supergateway.ts';
import type { HostLogOptions, HostLogReader, HostRead } from './types.ts';
import { VsCodeReader } from './vscode.ts';

/**
 * Agent hosts' and bridges' own logs as native events (DOMAIN.md section 9, issue 37; README.md beside this file).
 * Unlike an access log, a host log is read whole: a reader takes the log's lines in order and answers records as
 * they complete (a request once its answer, its cancel or its connection's end is read).
 *
 *     const reader = hostLogReader('mcp-remote', { server: 'files' });
 *     for (const [i, line] of lines.entries()) use(reader.push(i + 1, line));
 *     use(reader.end()); say(reader.notes());
 */
export function hostLogReader(format: HostFormat, options: HostLogOptions): HostLogReader {
  switch (format) {
    case 'claude-desktop':
      return new ClaudeDesktopReader(options);
    case 'vscode':
      return new VsCodeReader(options);
    case 'mcp-remote':
      return new McpRemoteReader(options);
    case 'supergateway':
      return new SupergatewayReader(options);
    case 'mcp-proxy':
      return new McpProxyReader(options);
    case 'claude-code':
    case 'cursor':
    case 'zed':
      return new LifecycleReader(format, options);
    case 'agentgateway':
      return new AgentgatewayReader(options);
    case 'librechat':
      return new LibreChatReader(options);
  }
}

/** A whole log read at once: its records in line order, and what the reader says of the log. */
export function readHostLog(
  format: HostFormat,
  lines: Iterable<{ line: number; text: string }>,
  options: HostLogOptions,
): { reads: HostRead[]; notes: string[] } {
  const reader = hostLogReader(format, options);
  const reads: HostRead[] = [];
  for (const { line, text } of lines) reads.push(...reader.push(line, text));
  reads.push(...reader.end());
  reads.sort((a, b) => a.line - b.line);
  return { reads, notes: reader.notes() };
}

export { HOST_FORMATS, type HostFormat, hostFormatOfLine, isHostFormat } from './detect.ts';
export type { HostLogOptions, HostLogReader, HostRead } from './types.ts';
