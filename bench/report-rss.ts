/**
 * `npx tsx bench/report-rss.ts [N...]`: the offline report's peak memory over generated logs (bench/generate.ts) of
 * N events each (default 100k and 1M), as `/usr/bin/time -v` measures `npm run -s lens -- report FILE`: the
 * "Maximum resident set size" of the largest process. Each log is written to the temporary directory and removed.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticLines } from './generate.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100_000, 1_000_000];

async function writeLog(path: string, events: number): Promise<void> {
  const out = createWriteStream(path);
  for (const line of syntheticLines(events)) if (!out.write(`${line}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

for (const events of sizes) {
  const path = join(tmpdir(), `lens-report-rss-${events}.ndjson`);
  await writeLog(path, events);
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-v', 'npm', 'run', '-s', 'lens', '--', 'report', path], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const seconds = (performance.now() - started) / 1000;
  rmSync(path);
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1];
  if (run.status !== 0 || kb === undefined) throw new Error(`report over ${events} events failed:\n${run.stderr}`);
  console.log(`${events} events: peak RSS ${Math.round(Number(kb) / 1024)} MB (${seconds.toFixed(1)} s)`);
}
