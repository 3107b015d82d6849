import { readFile } from 'node:fs/promises';
import { type ProxyRoute, parseProxyMap } from '../../shared/proxy-logs/routes.ts';
import { CliError } from './cli-error.ts';

/** Reads `--proxy-map FILE`: which server an access-log line belongs to, by host and path prefix. */
export async function loadProxyMap(path: string): Promise<ProxyRoute[]> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot read proxy map ${path}: ${detail}`, 2);
  }
  const parsed = parseProxyMap(value);
  if (!parsed.ok) throw new CliError(`${path}: ${parsed.message}`, 2);
  return parsed.routes;
}
