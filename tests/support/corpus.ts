import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The corpus recorded from published software (../shared/corpus/, copied into tests/fixtures/corpus/): the MCP Python
 * SDK and the A2A JS SDK behind nginx, with what a correct product must make of it (`expected.json`).
 */
export const CORPORA = ['mcp-python', 'a2a-js'] as const;
/** Every corpus: the two above, each of one server, and the MCP TypeScript SDK v2's (MCP 2026-07-28), of two. */
export const ALL_CORPORA = [...CORPORA, 'mcp-ts-v2'] as const;
export type CorpusName = (typeof ALL_CORPORA)[number];

export interface ExpectedEvent {
  bucket: string;
  kind: string;
  /** DOMAIN.md section 4's rule number; 0 for a success. */
  rule: number;
  kindFrom: 'ok' | 'DOMAIN.md' | 'proposed';
  avoidable: boolean;
  identity: string | null;
}

/** A storm as ../shared/corpus/gen-storms/storms.py lists it (DOMAIN.md section 6). */
export interface ExpectedStorm {
  kind: 'probe_storm' | 'reconnect_loop' | 'retry_loop';
  actor: string;
  counterpart: string;
  server: string;
  attempts: string[];
  avoidable: string[];
  title: string;
}

export interface Expected {
  /** The one server of the older corpora; mcp-ts-v2 lists `servers` instead (read `serversOf`). */
  server: string[];
  servers?: string[];
  events: Record<string, ExpectedEvent>;
  storms: ExpectedStorm[];
  scenarios: Record<string, { identityGroups: Record<string, string[]>; represented: Record<string, number> }>;
}

export function corpusPath(corpus: CorpusName, file: string): string {
  return fileURLToPath(new URL(`../fixtures/corpus/${corpus}/${file}`, import.meta.url));
}

export function corpusText(corpus: CorpusName, file: string): string {
  return readFileSync(corpusPath(corpus, file), 'utf8');
}

export function expectedOf(corpus: CorpusName): Expected {
  return JSON.parse(corpusText(corpus, 'expected.json')) as Expected;
}

/** The servers a corpus recorded. */
export function serversOf(expected: Expected): string[] {
  return expected.servers ?? expected.server;
}

/**
 * Each server's discovery document: `discovery.servers.json` where the corpus splits it per server (mcp-ts-v2),
 * else `discovery.json` for its one server.
 */
export function discoveriesOf(corpus: CorpusName): Record<string, unknown> {
  if (corpus === 'mcp-ts-v2') {
    return (JSON.parse(corpusText(corpus, 'discovery.servers.json')) as { servers: Record<string, unknown> }).servers;
  }
  return { [serversOf(expectedOf(corpus))[0] as string]: JSON.parse(corpusText(corpus, 'discovery.json')) };
}

/** DOMAIN.md section 4's numbered rule of one of our rule ids (shared/classify/rules.ts). */
export function ruleNumber(rule: string): number {
  if (rule === 'ok') return 0;
  if (rule.startsWith('structured.')) return 1;
  if (rule === 'rpc.method_not_found' || rule === 'http.method_not_allowed') return 2;
  if (rule.startsWith('http.404.') || rule === 'mcp.session_not_found') return 3;
  if (rule === 'a2a.code' || rule === 'rpc.request_repair' || rule === 'http.request_repair') return 4;
  if (rule === 'http.429' || rule === 'http.5xx' || rule === 'timeout') return 5;
  if (rule.startsWith('tool_error')) return 6;
  if (rule === 'fallback.ambiguous') return 7;
  if (rule.startsWith('mrtr.') || rule.startsWith('era.')) return 10;
  throw new Error(`no DOMAIN.md rule number for ${rule}`);
}

/** What a test compares per event: the firm expectations of expected.json. */
export function firmView(e: { bucket: string; rule: string | number; kind: string; avoidable: boolean | null }) {
  return { bucket: e.bucket, rule: typeof e.rule === 'number' ? e.rule : ruleNumber(e.rule), avoidable: e.avoidable };
}

/** Identity → the ids that share it, for identities sent more than once (expected.json's `identityGroups`). */
export function identityGroups(events: readonly { id: string; identity: string | null }[]): Record<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { id, identity } of events) {
    if (identity === null) continue;
    groups.set(identity, [...(groups.get(identity) ?? []), id]);
  }
  return Object.fromEntries([...groups].filter(([, ids]) => ids.length > 1).map(([k, ids]) => [k, ids.sort()]));
}

/** A file of the recorded host and bridge logs (tests/fixtures/hostlogs, copied from ../shared/corpus/hostlogs). */
export function hostLogPath(file: string): string {
  return fileURLToPath(new URL(`../fixtures/hostlogs/${file}`, import.meta.url));
}

export function hostLogText(file: string): string {
  return readFileSync(hostLogPath(file), 'utf8');
}
