import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StoreConfig } from '../db/store.ts';

/** How `npm run lens` starts node (package.json): the environment it sets, and node's flags. */
const LENS = lensCommand();

/** The server process's node flags: `npm run lens`'s, unless BENCH_NODE_FLAGS says otherwise. */
const SERVER_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? LENS.flags).split(' ').filter(Boolean);

function lensCommand(): { env: Record<string, string>; flags: string } {
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const match = /^((?:[A-Z_]+=\S+ )*)node (.*?)--import tsx /.exec(scripts.lens);
  if (match === null)
    throw new Error('package.json: the lens script is no longer `[NAME=VALUE …] node FLAGS --import tsx …`');
  const assignments = (match[1] ?? '').split(' ').filter(Boolean);
  const env = Object.fromEntries(assignments.map((assignment) => assignment.split('=') as [string, string]));
  return { env, flags: match[2] ?? '' };
}

/**
 * A file to copy the server's standard output to, unset for none: with BENCH_NODE_FLAGS="--max-semi-space-size=4
 * --trace-gc" it records every heap's collections, which is how the soak's memory was taken apart (issue 39).
 */
const SERVER_STDOUT_COPY = process.env.BENCH_SERVER_STDOUT;

export interface ServerProcess {
  url: string;
  /** The server process's peak resident set (VmHWM, bytes; Linux), writer thread and SQLite caches included. */
  peakRss(): number;
  /** Its resident set now (VmRSS, bytes). */
  rss(): number;
  /**
   * The resident set by kind (bytes): anonymous (the JavaScript heaps, SQLite's caches, buffers), file-backed (node's
   * own file, and any of the store mapped, pages the kernel may drop) and shared (SQLite's WAL index).
   */
  rssParts(): { anon: number; file: number; shmem: number };
  /**
   * Of the file-backed part, the store's own pages (bytes): what SQLite's reads touched through a mapping of the
   * file. 0 since the reader maps none (db/sqlite.ts, ADR 20): shown, so that a mapping brought back shows too.
   */
  storePages(): number;
  /**
   * CPU seconds the server process has used so far, user and system, every thread of it (the request thread, the
   * SQLite writer, the fold); on PostgreSQL the database's own processes are not in it.
   */
  cpuSeconds(): number;
  stop(): Promise<void>;
  /** Ends it as a crash does (SIGKILL: no handler runs, nothing is flushed or rolled back by it). */
  crash(): Promise<void>;
}

/**
 * `npm run lens -- serve` in its own process, so that the client's work is not billed to it; `serveArgs` are more of
 * serve's options, a later one overriding one given here.
 */
export async function spawnServer(config: StoreConfig, serveArgs: readonly string[] = []): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      ...['--import', 'tsx', 'api/cli/main.ts', 'serve', '--port', '0', '--data-dir', config.dataDir],
      // The generated traffic lies on fixed past days (bench/generate.ts): retention must not delete it mid-run.
      ...['--retain-events', '3650d', '--retain-counts', '3650d'],
      ...serveArgs,
    ],
    {
      env: { ...process.env, ...LENS.env, DATABASE_URL: config.databaseUrl ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      if (SERVER_STDOUT_COPY) appendFileSync(SERVER_STDOUT_COPY, chunk);
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${out}`)));
  });
  return {
    url,
    peakRss: () => statusBytes(child.pid, 'VmHWM'),
    rss: () => statusBytes(child.pid, 'VmRSS'),
    rssParts: () => ({
      anon: statusBytes(child.pid, 'RssAnon'),
      file: statusBytes(child.pid, 'RssFile'),
      shmem: statusBytes(child.pid, 'RssShmem'),
    }),
    storePages: () => mappedBytes(child.pid, '/lens.sqlite'),
    cpuSeconds: () => cpuSeconds(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
    async crash() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function statusBytes(pid: number | undefined, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** utime + stime of /proc/PID/stat (fields 14 and 15, in clock ticks: 100 a second on Linux). */
function cpuSeconds(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** The resident bytes of a process's mappings of files whose path ends with `suffix` (/proc/PID/smaps; Linux). */
export function mappedBytes(pid: number | undefined, suffix: string): number {
  let kb = 0;
  let counting = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) counting = line.endsWith(suffix);
    else if (counting && line.startsWith('Rss:')) kb += Number(/(\d+) kB/.exec(line)?.[1] ?? 0);
  }
  return kb * 1024;
}

/** What GET /api/v1/health says of the analysis (api/services/analysis-lag.ts). */
export interface AnalysisHealth {
  pendingEvents: number;
  pendingPartitions: number;
  lagMs: number;
}

export async function analysisHealth(baseUrl: string): Promise<AnalysisHealth> {
  const response = await fetch(`${baseUrl}/api/v1/health`);
  return ((await response.json()) as { analysis: AnalysisHealth }).analysis;
}

/**
 * Waits until a running server has folded and replayed everything it stored (its /health says nothing is pending):
 * counts read then are settled, as an operator reads them a moment later.
 */
export async function untilAnalysed(baseUrl: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const analysis = await analysisHealth(baseUrl);
    if (analysis.pendingEvents === 0 && analysis.pendingPartitions === 0) return;
    if (Date.now() > deadline) throw new Error(`still analysing after ${timeoutMs} ms: ${JSON.stringify(analysis)}`);
    await sleep(20);
  }
}
