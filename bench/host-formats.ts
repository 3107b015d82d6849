/**
 * Host and bridge logs for the format bench (formats.ts): each format's fixture (tests/fixtures/hostlogs, recorded
 * bridges, and the recorded runs' frames, times and statuses in the reconstructed grammars of the others) repeated to
 * about `lines` lines, read the way ingest reads a host log (one reader over the whole log, each record validated).
 * Every format ingest reads has one: a new format without a fixture here does not compile.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateEvent } from '../shared/event.ts';
import { type HostFormat, readHostLog } from '../shared/host-logs/index.ts';

const FIXTURES: Readonly<Record<HostFormat, string>> = {
  'claude-desktop': 'claude-desktop/mcp-server-tools-server.log',
  vscode: 'vscode/mcp-tools-server.debug.log',
  'mcp-remote': 'mcp-remote/recorded-2.log',
  supergateway: 'supergateway/recorded-2.log',
  'mcp-proxy': 'mcp-proxy/recorded-1.log',
  'claude-code': 'claude-code/crash-loop.log',
  cursor: 'cursor/Cursor MCP.log',
  zed: 'zed/Zed.log',
  agentgateway: 'agentgateway/recorded-3.access.log',
  librechat: 'librechat/librechat.log',
};

export interface HostSubject {
  name: string;
  unit: 'line';
  bytes: number;
  run(tally?: { refused: number; warnings: number }): { items: number; events: number };
}

export function hostSubjects(lines: number): HostSubject[] {
  return (Object.entries(FIXTURES) as [HostFormat, string][]).map(([format, file]) => {
    const one = readFileSync(fileURLToPath(new URL(`../tests/fixtures/hostlogs/${file}`, import.meta.url)), 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const log: { line: number; text: string }[] = [];
    for (let i = 0; log.length < lines; i++) log.push({ line: log.length + 1, text: one[i % one.length] as string });
    const options = { server: 'bench', start: 0, timeZone: 'UTC', fileName: file.split('/').pop() as string };
    return {
      name: format,
      unit: 'line' as const,
      bytes: log.reduce((n, l) => n + Buffer.byteLength(l.text) + 1, 0),
      run(tally) {
        let events = 0;
        const { reads } = readHostLog(format, log, options);
        for (const read of reads) {
          if ('refused' in read) {
            if (tally) tally.refused++;
            continue;
          }
          const parsed = validateEvent(read.value);
          if (parsed.ok) {
            events++;
            if (tally) tally.warnings += parsed.warnings.length;
          } else if (tally) tally.refused++;
        }
        return { items: log.length, events };
      },
    };
  });
}
