import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { untilAnalysed } from '../../bench/server-process.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** Runs `npm run lens -- ARGS` as a user does (one process, the real entry point), collecting its output. */
export function lens(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'api/cli/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * A `lens serve` of the enclosing `describe`'s own, on an ephemeral port over `dataDir()`, and how many requests its
 * summary counts over `range` once the analysis has caught up: what a CLI test checks after shipping logs to it.
 */
export function serverForSuite(dataDir: () => string) {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dataDir() });
  });
  afterAll(async () => server?.close());
  const url = () => {
    if (server === undefined) throw new Error('the suite server starts in beforeAll');
    return server.url;
  };
  return {
    url,
    async total(range = ''): Promise<number> {
      await untilAnalysed(url());
      const summary = await (await fetch(`${url()}/api/v1/summary${range === '' ? '' : `?${range}`}`)).json();
      return summary.overall.total as number;
    },
  };
}
