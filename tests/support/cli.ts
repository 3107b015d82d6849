import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { untilAnalysed } from '../../bench/server-process.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
/** tsx by its file, so that the CLI runs from any working directory, as a user's shell does. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface LensOptions {
  /** The working directory (default: the repository's root), where relative paths such as ./data resolve. */
  cwd?: string;
}

function spawnLens(args: string[], env: Record<string, string>, { cwd = ROOT }: LensOptions) {
  return spawn(process.execPath, ['--import', TSX, join(ROOT, 'api/cli/main.ts'), ...args], {
    cwd,
    env: { ...process.env, ...env },
  });
}

/** Runs `npm run lens -- ARGS` as a user does (one process, the real entry point), collecting its output. */
export function lens(args: string[], env: Record<string, string> = {}, options: LensOptions = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawnLens(args, env, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Servers still running, ended with the test process whatever became of the test that started them. */
const serving = new Set<ChildProcessWithoutNullStreams>();
process.once('exit', () => {
  for (const child of serving) child.kill('SIGKILL');
});

/**
 * `npm run lens -- serve ARGS` in its own process, once it has said `until` on stdout (its URL and what it loaded):
 * what a user reads in the terminal, and how to stop it (SIGTERM, as Ctrl-C would; answers its exit code).
 */
export async function serveLens(
  args: string[],
  until: RegExp,
  options: LensOptions & { env?: Record<string, string> } = {},
): Promise<{ stdout: string; stderr: () => string; stop(): Promise<number> }> {
  const child: ChildProcessWithoutNullStreams = spawnLens(
    ['serve', '--port', '0', ...args],
    options.env ?? {},
    options,
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  serving.add(child);
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code) => {
      serving.delete(child);
      resolve(code ?? -1);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if (until.test(stdout)) resolve();
    });
    exited.then((code) => reject(new Error(`lens serve exited (${code}) before it said ${until}: ${stdout}${stderr}`)));
  });
  return {
    stdout,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
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
