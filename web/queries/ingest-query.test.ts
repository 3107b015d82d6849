import { describe, expect, it } from 'vitest';
import { ingestQuery, ingestSearch } from './ingest-query.ts';

describe('ingestQuery', () => {
  it('sends a native file without a query, as the screen always did', () => {
    expect(ingestQuery({ format: 'native', server: 'ignored', protocol: 'a2a' })).toEqual({});
    expect(ingestSearch({ format: 'native', server: '', protocol: '' })).toBe('');
  });

  it('names the format of an access log, and its server and protocol when the operator gave them', () => {
    expect(ingestQuery({ format: 'nginx-json', server: '', protocol: '' })).toEqual({ format: 'nginx-json' });
    expect(ingestQuery({ format: 'envoy', server: '  release-desk ', protocol: 'a2a' })).toEqual({
      format: 'envoy',
      server: 'release-desk',
      protocol: 'a2a',
    });
    expect(ingestQuery({ format: 'nginx-combined', server: '   ', protocol: 'mcp' })).toEqual({
      format: 'nginx-combined',
      protocol: 'mcp',
    });
  });

  it('sends a VS Code log’s zone when the operator gave one, and no zone for other formats', () => {
    expect(ingestQuery({ format: 'vscode', server: '', protocol: '', tz: ' Europe/Berlin ' })).toEqual({
      format: 'vscode',
      tz: 'Europe/Berlin',
    });
    expect(ingestQuery({ format: 'vscode', server: '', protocol: '', tz: '' })).toEqual({ format: 'vscode' });
    expect(ingestQuery({ format: 'claude-desktop', server: '', protocol: '', tz: 'UTC' })).toEqual({
      format: 'claude-desktop',
    });
  });

  it('sends a Cursor log’s zone too, its times being local without one', () => {
    expect(ingestQuery({ format: 'cursor', server: '', protocol: '', tz: 'America/New_York' })).toEqual({
      format: 'cursor',
      tz: 'America/New_York',
    });
  });

  it('sends a LibreChat log’s zone, for the lines it writes without one', () => {
    expect(ingestQuery({ format: 'librechat', server: '', protocol: '', tz: 'Europe/Berlin' })).toEqual({
      format: 'librechat',
      tz: 'Europe/Berlin',
    });
  });

  it('sends when a log without times starts, read in this browser’s zone, for those formats only', () => {
    const start = '2026-12-06T02:30';
    expect(ingestQuery({ format: 'mcp-remote', server: 'files', protocol: '', start })).toEqual({
      format: 'mcp-remote',
      server: 'files',
      start: new Date(2026, 11, 6, 2, 30).toISOString(),
    });
    expect(ingestQuery({ format: 'claude-code', server: '', protocol: '', start: '' })).toEqual({
      format: 'claude-code',
    });
    expect(ingestQuery({ format: 'claude-desktop', server: '', protocol: '', start })).toEqual({
      format: 'claude-desktop',
    });
  });

  it("sends a Claude Desktop log's file name, which says which of its logs it is", () => {
    const settings = { server: '', protocol: '', file: 'mcp-server-files.log' } as const;
    expect(ingestQuery({ ...settings, format: 'claude-desktop' })).toEqual({
      format: 'claude-desktop',
      file: 'mcp-server-files.log',
    });
    expect(ingestQuery({ ...settings, format: 'nginx-json' })).toEqual({ format: 'nginx-json' });
  });

  it('writes the same query as text, encoded', () => {
    expect(ingestSearch({ format: 'envoy-json', server: 'release desk/eu', protocol: 'mcp' })).toBe(
      '?format=envoy-json&server=release+desk%2Feu&protocol=mcp',
    );
  });
});
