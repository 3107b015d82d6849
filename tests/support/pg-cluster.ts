import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The directory holding initdb and pg_ctl: the newest Debian install, else whatever PATH finds. */
function findBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? initdb.replace(/\/initdb$/, '') : null;
  } catch {
    return null;
  }
}

const BIN = findBinaries();
/** PostgreSQL refuses to run as root: as root, the binaries run as this user (who owns the cluster's files). */
const AS_ROOT = process.getuid?.() === 0;
const OWNER = 'postgres';

function ownerIds(): { uid: number; gid: number } | null {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, OWNER], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return null;
  }
}

const OWNER_IDS = AS_ROOT ? ownerIds() : null;

/** Null when a throwaway cluster can be made here; otherwise why not. */
export const pgClusterUnavailable: string | null =
  BIN === null
    ? 'initdb and pg_ctl not found (neither /usr/lib/postgresql/*/bin nor PATH)'
    : AS_ROOT && OWNER_IDS === null
      ? `running as root and there is no "${OWNER}" user to run PostgreSQL as`
      : null;

if (pgClusterUnavailable !== null) {
  // As with the shared server (stores.ts): CI must never skip, a developer is told plainly.
  if (process.env.CI) throw new Error(`a throwaway PostgreSQL cluster is required in CI: ${pgClusterUnavailable}`);
  console.warn(`\n*** PostgreSQL failure suite SKIPPED: ${pgClusterUnavailable}. Install PostgreSQL. ***\n`);
}

function binary(name: string, args: string[], timeout = 30_000) {
  const path = join(BIN ?? '', name);
  const [file, argv] = AS_ROOT ? ['runuser', ['-u', OWNER, '--', path, ...args]] : [path, args];
  return run(file, argv, { timeout, encoding: 'utf8' });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A PostgreSQL server of the test's own, in a temporary directory: started, stopped and killed at will. */
export interface PgCluster {
  /** Connection string of its `postgres` database (trust authentication). */
  readonly url: string;
  readonly port: number;
  start(): Promise<void>;
  /** `immediate` is a crash as far as clients can tell: every connection is cut, no shutdown handshake. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops the server if it runs and deletes its files. */
  destroy(): Promise<void>;
}

const live = new Set<string>();
process.once('exit', () => {
  // A test that died half-way must not leave a postmaster behind.
  for (const data of live) {
    try {
      const path = join(BIN ?? '', 'pg_ctl');
      const args = ['stop', '-D', data, '-m', 'immediate', '-w'];
      execFileSync(AS_ROOT ? 'runuser' : path, AS_ROOT ? ['-u', OWNER, '--', path, ...args] : args, {
        stdio: 'ignore',
      });
    } catch {
      // already gone
    }
  }
});

/** initdb into a fresh temporary directory and start it on a free port of 127.0.0.1. */
export async function createPgCluster(): Promise<PgCluster> {
  if (pgClusterUnavailable !== null) throw new Error(pgClusterUnavailable);
  const root = mkdtempSync(join(tmpdir(), 'lens-pg-'));
  const data = join(root, 'data');
  if (OWNER_IDS !== null) chownSync(root, OWNER_IDS.uid, OWNER_IDS.gid);
  try {
    await binary('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${root}'`,
    // Only the server process ever dies here, never the machine: what it wrote is in the page cache either way.
    // (synchronous_commit stays on: off, a commit answered before its WAL is written dies with the server.)
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  let running = false;
  const cluster: PgCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await binary('pg_ctl', ['start', '-D', data, '-w', '-t', '20', '-l', join(root, 'log'), '-o', options]);
      running = true;
      live.add(data);
    },
    async stop(mode = 'immediate') {
      await binary('pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', '20']);
      running = false;
      live.delete(data);
    },
    async destroy() {
      if (running) await cluster.stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
