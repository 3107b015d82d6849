import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How events' lines are stored: in blocks of up to BLOCK_LINES consecutive lines of one insert, joined by newlines
 * (an NDJSON line has none, JSON.stringify writes none) and deflated with a preset dictionary, after one byte naming
 * the format. Lines of one log repeat each other's members and values, so a block costs a fraction of its lines
 * deflated one by one (bench traffic: 406 -> 37 bytes a line, against 113; demo: 287 -> 24), and one deflate call a
 * block instead of a line saves most of the CPU (~5 us a line, against ~14). Reading one event inflates its block
 * (15-100 us). The dictionary holds the member names and values every line repeats (this format's, JSON-RPC's, MCP's
 * and A2A's), which the first lines of a block, and small batches, would otherwise pay for.
 *
 * Stored blocks can only be read back with the dictionary they were written with: never edit it, add a format.
 */
const DEFLATE_V1 = 1;

/** A block of 32 bench lines is ~1.2 KB: three fill a 4 KB SQLite page (64 left 40% of each page empty). */
export const BLOCK_LINES = 32;

// Rarest first: deflate codes a nearer match in fewer bits, so the strings every line has come last.
const DICTIONARY_V1 = Buffer.from(
  [
    '"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"","version":"1.0.0"}',
    '"method":"notifications/initialized""method":"initialize""method":"ping"',
    '"method":"resources/templates/list""method":"resources/subscribe""method":"completion/complete"',
    '"method":"logging/setLevel""method":"roots/list""method":"elicitation/create"',
    '"method":"tasks/cancel""method":"tasks/get""method":"message/stream""method":"message/send"',
    '"parts":[{"kind":"text","text":"',
    '"kind":"task","status":{"state":"completed"}',
    '"method":"prompts/get""method":"prompts/list""method":"resources/read","params":{"uri":"',
    '"method":"resources/list""method":"tools/list","params":{}',
    '"result":{"tools":[{"name":"","description":"","inputSchema":{"type":"object","properties":{',
    '"message":"Parse error""message":"Invalid Request""message":"Method not found"',
    '"message":"Internal error""message":"Invalid params""message":"Session not found"',
    '"error":{"code":-32600,"error":{"code":-32601,"error":{"code":-32603,"error":{"code":-32001,',
    '"error":{"code":-32002,"error":{"code":-32003,"error":{"code":-32602,"message":"Unknown tool',
    '"data":{"reason":"","retryable":false}',
    '"_meta":{"context":{"requested":"allServers","applied":"thisServer","reason":"',
    '"_meta":{"progressToken":"_meta":{"traceparent":"00-',
    '"includeContext":"none""includeContext":"thisServer""includeContext":"allServers","maxTokens":',
    '"method":"sampling/createMessage","params":{"systemPrompt":"","messages":[{"role":"user","content":',
    '{"role":"assistant","content":{"type":"text","text":"","model":"',
    '"structuredContent":{},"isError":true}"isError":false}',
    '"timeout":true"timeout":false"discoveryRead":false"discoveryRead":true',
    '"source":"proxy","protocol":"a2a","path":"/.well-known/agent-card.json","path":"/.well-known/agent.json"',
    '"path":"/.well-known/oauth-protected-resource","path":"/sse","method":"GET","method":"DELETE"',
    '"status":202},"status":204},"status":400},"status":401},"status":403},"status":404},"status":406},',
    '"status":409},"status":500},"status":502},"status":504},"status":503},"status":429,"retryAfter":',
    '"ts":"2026-01-01T00:00:00.000Z","id":"',
    '"params":{"name":"","arguments":{"',
    '"result":{"content":[{"type":"text","text":"',
    '"response":{"jsonrpc":"2.0","id":',
    '"request":{"jsonrpc":"2.0","id":',
    '"latencyMs":',
    '"method":"tools/call',
    '{"id":"","ts":1,"source":"client","client":"","server":"","session":"","protocol":"mcp",',
    '"http":{"method":"POST","path":"/mcp","status":200},',
  ].join(''),
);

/** deflate keeps a window of 2^windowBits bytes: 4 KB holds the dictionary and allocates less than the default. */
const OPTIONS = { dictionary: DICTIONARY_V1, windowBits: 12 } as const;

/** Lines packed into blocks: line i is line `lineOf[i]` of block `blockOf[i]`. */
export interface PackedLines {
  blocks: Buffer[];
  blockOf: number[];
  lineOf: number[];
}

/**
 * Lines in blocks, in order, up to BLOCK_LINES a block, a new block starting wherever `cutKeys` (one per line, when
 * given) changes from the line before: the stores cut at each change of day, so that a block holds one day's lines
 * and goes with that day (docs/adr/0009-retention.md). A block is always a run of consecutive lines.
 */
export function packLines(lines: readonly string[], cutKeys?: readonly number[]): PackedLines {
  const blocks: Buffer[] = [];
  const blockOf: number[] = new Array(lines.length);
  const lineOf: number[] = new Array(lines.length);
  let start = 0;
  for (let i = 1; i <= lines.length; i++) {
    const full = i - start === BLOCK_LINES;
    const cut = i === lines.length || full || (cutKeys !== undefined && cutKeys[i] !== cutKeys[i - 1]);
    if (!cut) continue;
    for (let line = start; line < i; line++) {
      blockOf[line] = blocks.length;
      lineOf[line] = line - start;
    }
    blocks.push(encodeBlock(lines.slice(start, i)));
    start = i;
  }
  return { blocks, blockOf, lineOf };
}

function encodeBlock(lines: readonly string[]): Buffer {
  if (lines.some((line) => line.includes('\n'))) throw new Error('a stored line cannot hold a newline');
  const deflated = deflateRawSync(lines.join('\n'), OPTIONS);
  // Not from Buffer's shared pool: a block goes to the writer thread, which would be sent the whole pool slab.
  const block = Buffer.allocUnsafeSlow(deflated.length + 1);
  block[0] = DEFLATE_V1;
  deflated.copy(block, 1);
  return block;
}

/**
 * Lines `wanted` of a block (undefined for one past its end). A line stored before blocks (SQLite text, PostgreSQL
 * UTF-8 bytes) is a block of one: a line of JSON never starts with byte 1. Each is decoded alone: a line split from
 * the block's text would be a slice of it and keep all of it alive, ~13 KB for a line of ~400 B (compaction holds the
 * lines of ~4,000 blocks at once, db/queries/bodies.ts linesOfRows), and the lines not wanted are never decoded.
 */
export function blockLines(data: Uint8Array | string, wanted: readonly number[]): (string | undefined)[] {
  const block = openBlock(data);
  return wanted.map((line) => (line < block.count ? block.line(line) : undefined));
}

function openBlock(data: Uint8Array | string): { count: number; line: (line: number) => string } {
  if (typeof data === 'string') return { count: 1, line: () => data };
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes[0] !== DEFLATE_V1) return { count: 1, line: () => bytes.toString('utf8') };
  const text = inflateRawSync(bytes.subarray(1), OPTIONS);
  // Where each line starts: a newline byte is never part of a longer UTF-8 character.
  const starts = [0];
  for (let at = text.indexOf(NEWLINE); at >= 0; at = text.indexOf(NEWLINE, at + 1)) starts.push(at + 1);
  return {
    count: starts.length,
    line: (line) => text.toString('utf8', starts[line], (starts[line + 1] ?? text.byteLength + 1) - 1),
  };
}

const NEWLINE = 0x0a;
