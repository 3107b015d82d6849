import { readFile } from 'node:fs/promises';
import { NO_POLICY, type ServerPolicy } from '../../shared/classify/types.ts';
import { parseDiscovery } from '../../shared/discovery.ts';
import type { DeclaredServer } from '../../shared/proxy-logs/routes.ts';
import { CliError } from './cli-error.ts';

/**
 * Reads a discovery file for offline commands: either one document that applies to every server, or
 * `{"servers":{"<name>":<document>}}`. Answers the policy for a server name, and the servers it declares by name
 * (which name the lines of an access log by their paths).
 */
export async function loadDiscoveryFile(
  path: string,
): Promise<{ policyFor: (server: string) => ServerPolicy; declared: DeclaredServer[] }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot read discovery file ${path}: ${detail}`);
  }
  const perServer = isRecord(value) && isRecord(value.servers) ? value.servers : null;
  if (perServer === null) {
    const policy = policyOf(value, path);
    return { policyFor: () => policy, declared: [] };
  }
  const policies = new Map(Object.entries(perServer).map(([name, doc]) => [name, policyOf(doc, `${path} (${name})`)]));
  const declared = [...policies].flatMap(([server, { discovery }]) =>
    discovery === null ? [] : [{ server, document: discovery }],
  );
  return { policyFor: (server) => policies.get(server) ?? NO_POLICY, declared };
}

function policyOf(document: unknown, where: string): ServerPolicy {
  const parsed = parseDiscovery(document);
  if (!parsed.ok) throw new CliError(`${where}: ${parsed.error.message}. ${parsed.error.fix}`);
  return { discovery: parsed.document, overrides: [] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
