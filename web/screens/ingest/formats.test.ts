import { describe, expect, it } from 'vitest';
import { detectionText, FORMAT_LABEL, isProxyFormat, LOG_FORMATS, settingsText } from './formats.ts';

describe('format labels', () => {
  it('labels every format the select offers, native first', () => {
    expect(LOG_FORMATS[0]).toBe('native');
    expect(new Set(LOG_FORMATS).size).toBe(15);
    for (const format of LOG_FORMATS) expect(FORMAT_LABEL[format].length).toBeGreaterThan(0);
    expect(LOG_FORMATS.filter(isProxyFormat)).toEqual([
      'nginx-json',
      'nginx-combined',
      'envoy',
      'envoy-json',
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
    ]);
  });

  it('says what detection found, and what happens when it found nothing', () => {
    expect(detectionText('nginx-json')).toBe('Detected: nginx JSON access log');
    expect(detectionText('native')).toBe('Detected: Refusal Lens NDJSON (native)');
    expect(detectionText(null)).toMatch(/^Format not detected: .*sent as native NDJSON unless you choose another\.$/);
  });

  it('sums up how a file is sent; server and protocol only for an access log', () => {
    expect(settingsText({ format: 'native', server: 'x', protocol: 'a2a' })).toBe('Refusal Lens NDJSON (native)');
    expect(settingsText({ format: 'nginx-json', server: ' release-desk ', protocol: 'a2a' })).toBe(
      'nginx JSON access log · server release-desk · A2A',
    );
    // A host's log names its servers; a bridge's names none.
    expect(settingsText({ format: 'cursor', server: '', protocol: '' })).toBe(
      'Cursor MCP log (lifecycle only; local times) · server from the log',
    );
    expect(settingsText({ format: 'mcp-proxy', server: '', protocol: '' })).toBe(
      'mcp-proxy --debug log (bridge) · server "unknown"',
    );
    expect(settingsText({ format: 'envoy', server: '', protocol: '' })).toBe(
      'Envoy access log (default text format) · server from discovery documents or host',
    );
  });
});
