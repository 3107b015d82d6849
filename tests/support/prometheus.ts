import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Prometheus's own tools, from Debian: `promtool` (package prometheus) lints the text format, and the Prometheus
 * Python client's parsers (python3-prometheus-client) read both formats back, OpenMetrics strictly. `.ci/run`
 * installs both; elsewhere a suite without them skips with a notice, as the browser suite does.
 */
const PROMTOOL = '/usr/bin/promtool';
/** Debian's Python: its dist-packages hold the client, whatever python3 comes first on the PATH. */
const PYTHON = '/usr/bin/python3';

export function prometheusToolsMissing(): boolean {
  const missing = [PROMTOOL, PYTHON].filter((tool) => !existsSync(tool));
  if (missing.length === 0) return false;
  const install = 'apt-get install prometheus python3-prometheus-client';
  if (process.env.CI) throw new Error(`the metrics tests need ${missing.join(' and ')} (${install})`);
  console.warn(`\n*** Prometheus exposition checks SKIPPED: no ${missing.join(' or ')}. Run ${install}. ***\n`);
  return true;
}

/** What `promtool check metrics` says of an exposition in the text format: its exit code and its complaints. */
export async function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await run(PROMTOOL, ['check', 'metrics'], text);
  return { code, output: stdout + stderr };
}

export interface ParsedSample {
  family: string;
  type: string;
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads an exposition back with the Prometheus Python client's parser for its format; throws what it rejects. */
export async function parseExposition(text: string, format: 'text' | 'openmetrics'): Promise<ParsedSample[]> {
  const parser = format === 'text' ? 'prometheus_client.parser' : 'prometheus_client.openmetrics.parser';
  const script = `
import json, sys
from ${parser} import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append({"family": family.name, "type": family.type, "name": s.name, "labels": s.labels, "value": s.value})
print(json.dumps(out))
`;
  const { code, stdout, stderr } = await run(PYTHON, ['-c', script], text);
  if (code !== 0) throw new Error(`the ${format} parser refused the exposition: ${stderr}`);
  return JSON.parse(stdout) as ParsedSample[];
}

function run(command: string, args: string[], input: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}
