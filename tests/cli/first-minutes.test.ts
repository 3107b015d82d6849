import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP } from '../../api/cli/help.ts';
import { lens, serveLens, serverForSuite } from '../support/cli.ts';
import { corpusPath } from '../support/corpus.ts';
import { clientEvent } from '../support/events.ts';

/** The command line as a newcomer meets it: help, mistakes, a server that is down, a file sent twice, `serve`. */

const COMMANDS = Object.keys(HELP);
/** A Node stack trace's frames: what a mistake on the command line must never print. */
const STACK = /\n\s+at /;

describe("the command line's first minutes", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lens-first-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const events = (prefix: string, n: number) =>
    `${Array.from({ length: n }, (_, i) => JSON.stringify(clientEvent({ id: `${prefix}-${i + 1}` }))).join('\n')}\n`;

  describe('help', () => {
    it.each([[[]], [['--help']], [['-h']], [['help']]])('`lens %j` lists the commands', async (args) => {
      const { code, stdout, stderr } = await lens(args);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      expect(stdout.split('\n')[0]).toBe('usage: npm run lens -- <command> [options]');
      for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
      expect(stdout).toContain('npm run lens -- <command> --help says what a command does and lists its options');
    });

    it.each([
      ['serve', ['--demo', '--data-dir DIR', '--port N']],
      ['ingest', ['--url URL', '--give-up-after 5m', '--restart']],
      ['classify', ['--discovery FILE', '--format F']],
      ['report', ['--json', '--discovery FILE']],
      ['demo', ['--data-dir DIR']],
    ])('`lens %s --help` says what it does and lists its options', async (command, flags) => {
      for (const args of [
        [command, '--help'],
        [command, '-h'],
        ['help', command],
      ]) {
        const { code, stdout, stderr } = await lens(args);
        expect(code, args.join(' ')).toBe(0);
        expect(stderr).toBe('');
        expect(stdout.split('\n')[0]).toMatch(new RegExp(`^usage: npm run lens -- ${command} `));
        expect(stdout).toContain('\noptions:\n');
        for (const flag of flags)
          expect(stdout).toMatch(new RegExp(`^  ${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'));
      }
    });
  });

  describe('mistakes get a line and the usage, never a stack trace', () => {
    it.each([
      [['classify', '--bogus', 'x.log'], 'unknown option --bogus', 'classify'],
      [['report', '-x', 'x.log'], 'unknown option -x', 'report'],
      [['report', '--json=yes', 'x.log'], '--json takes no value', 'report'],
      [['ingest', 'x.ndjson', '--url'], '--url needs a value', 'ingest'],
      [['serve', '--port'], '--port needs a value', 'serve'],
      [['serve', 'extra'], 'unexpected argument "extra": this command takes none', 'serve'],
      [['ingest', '--url', 'http://127.0.0.1:7700'], 'no FILE to send', 'ingest'],
      [['ingest', 'x.ndjson'], '--url URL names the server to send to', 'ingest'],
      [['classify'], 'no LOG to read', 'classify'],
    ])('`lens %j`', async (args, problem, command) => {
      const { code, stdout, stderr } = await lens(args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).not.toMatch(STACK);
      expect(stderr).toBe(
        `lens ${command}: ${problem}\nusage: npm run lens -- ${HELP[command as keyof typeof HELP].synopsis}\n` +
          `(npm run lens -- ${command} --help lists its options)\n`,
      );
    });

    it('names an unknown command and lists the real ones', async () => {
      const { code, stderr } = await lens(['frobnicate']);
      expect(code).toBe(2);
      expect(stderr.split('\n')[0]).toBe('lens: unknown command "frobnicate"');
      expect(stderr).toContain('usage: npm run lens -- <command> [options]');
    });

    it('refuses a --url that is no http(s) address before reading a file', async () => {
      const { code, stderr } = await lens(['ingest', write('u.ndjson', events('u', 1)), '--url', '127.0.0.1:7700']);
      expect(code).toBe(2);
      expect(stderr).toBe(
        'lens ingest: --url takes the server\'s http(s):// address, such as http://127.0.0.1:7700; got "127.0.0.1:7700"\n',
      );
    });
  });

  describe('ingest when the server is down, busy or already has the file', () => {
    /** A port nothing listens on: one the system just gave out and took back. */
    async function closedPort(): Promise<number> {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise((resolve) => server.close(resolve));
      return port;
    }

    it('gives up on a server nobody answers for, saying what was sent and how to resume', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const log = write('down.ndjson', events('down', 3));
      const state = join(dir, 'down-state.json');
      const { code, stderr } = await lens(['ingest', log, '--url', url, '--give-up-after', '1s', '--state', state]);
      expect(code).toBe(1);
      expect(stderr).not.toMatch(STACK);
      const last = stderr.trimEnd().split('\n').slice(-4);
      expect(last[0]).toMatch(
        new RegExp(
          `^lens ingest: cannot reach ${url}: .+ \\(gave up after \\d+ s of trying; --give-up-after sets how long\\)$`,
        ),
      );
      expect(last.slice(1)).toEqual([
        '  sent and stored before it stopped: nothing',
        `  not sent: ${log} from line 1`,
        `  the same command sends the rest when run again: each file resumes where it stopped (saved in ${state})`,
      ]);
      const badWait = await lens(['ingest', log, '--url', url, '--give-up-after', '5']);
      expect(badWait.code).toBe(2);
      expect(badWait.stderr).toContain(
        '--give-up-after takes a number of seconds, minutes or hours, such as 5m; got "5"',
      );
    });

    it('gives up on a server that takes the connection and never answers, instead of hanging', async () => {
      const silent: Server = createServer(() => {
        // Reads the request and never answers: a wedged process behind a live port.
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
        const log = write('silent.ndjson', events('silent', 2));
        const args = ['ingest', log, '--url', url, '--give-up-after', '1s', '--state', join(dir, 'silent-state.json')];
        const { code, stderr } = await lens(args);
        expect(code).toBe(1);
        expect(stderr).toMatch(
          new RegExp(`lens ingest: cannot reach ${url}: no answer within 10 s \\(gave up after \\d+ s of trying; `),
        );
        expect(stderr).toContain(`  not sent: ${log} from line 1\n`);
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
    }, 60_000);

    it('stops mid-file on a server that keeps answering 503, then resumes at the first line not stored', async () => {
      // A stand-in server: stores the first batch, then answers 503 until it is told it is back.
      let up = false;
      let batches = 0;
      const received: string[][] = [];
      const stub: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const lines = gunzipSync(Buffer.concat(chunks)).toString().trim().split('\n');
          if (batches++ > 0 && !up) {
            res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
            res.end(
              JSON.stringify({
                error: { code: 'store_unavailable', message: 'the store is restarting', retryable: true },
              }),
            );
            return;
          }
          received.push(lines.map((line) => JSON.parse(line).id));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              accepted: lines.length,
              duplicates: 0,
              rejected: [],
              rejectedTotal: 0,
              warnings: [],
              warningsTotal: 0,
            }),
          );
        });
      });
      await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
        const log = write('busy.ndjson', events('busy', 10));
        const other = write('after.ndjson', events('after', 2));
        const args = [
          'ingest',
          log,
          other,
          '--url',
          url,
          '--batch-lines',
          '4',
          '--state',
          join(dir, 'busy-state.json'),
        ];
        const stopped = await lens([...args, '--give-up-after', '2s']);
        expect(stopped.code).toBe(1);
        expect(stopped.stderr).toContain(
          'lens ingest: the server answered 503 store_unavailable: the store is restarting; sending the batch again in',
        );
        expect(stopped.stderr).toMatch(
          /lens ingest: the server kept answering 503 store_unavailable: the store is restarting\. \(gave up after \d+ s of trying; --give-up-after sets how long\)\n/,
        );
        expect(stopped.stderr).toContain(
          `  sent and stored before it stopped: ${log} lines 1-4\n  not sent: ${log} from line 5, ${other}\n`,
        );
        expect(received).toEqual([['busy-1', 'busy-2', 'busy-3', 'busy-4']]);

        up = true;
        const resumed = await lens(args);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(received.slice(1)).toEqual([
          ['busy-5', 'busy-6', 'busy-7', 'busy-8'],
          ['busy-9', 'busy-10'],
          ['after-1', 'after-2'],
        ]);
      } finally {
        await new Promise((resolve) => stub.close(resolve));
      }
    });

    describe('against a real server', () => {
      const server = serverForSuite(() => join(dir, 'data'));

      it('says a file was already sent, and that a --restart found every line stored', async () => {
        const log = write('twice.ndjson', events('twice', 5));
        const args = ['ingest', log, '--url', server.url(), '--state', join(dir, 'twice-state.json')];
        const first = await lens(args);
        expect(first.code).toBe(0);
        expect(first.stderr).toMatch(/5 accepted, 0 duplicate, 0 rejected\n$/);
        const again = await lens(args);
        expect(again.code).toBe(0);
        expect(again.stderr).toBe(
          `${log}: already sent to ${server.url()} (up to line 5), nothing new since; --restart sends it again\n`,
        );
        const restarted = await lens([...args, '--restart']);
        expect(restarted.stderr).toMatch(/0 accepted, 5 duplicate, 0 rejected \(every line was stored already\)\n$/);
        expect(await server.total()).toBe(5);
      });
    });
  });

  describe('serve', () => {
    it('says where its data are and what they hold, empty or not', async () => {
      const data = join(dir, 'served');
      const empty = await serveLens(['--data-dir', data], /stored: .*\n/);
      const log = corpusPath('mcp-python', 'client.ndjson');
      let stopped: number;
      try {
        const url = /listening on (\S+)/.exec(empty.stdout)?.[1] as string;
        expect(empty.stdout).toBe(
          `Refusal Lens listening on ${url}\n` +
            `  data:   ${data} (SQLite)\n` +
            `  packs:  events older than 48 h into compressed blocks, in the background (--hot-window; off: never)\n` +
            `  stored: no events yet: drop logs on ${url}/ingest or run npm run lens -- ingest FILE... --url ${url}\n`,
        );
        expect((await lens(['ingest', log, '--url', url, '--state', join(dir, 'served-state.json')])).code).toBe(0);
      } finally {
        stopped = await empty.stop();
      }
      // Ctrl-C ends it cleanly.
      expect(stopped).toBe(0);

      const times = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => Date.parse(JSON.parse(line).ts));
      const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
      const loaded = await serveLens(['--data-dir', data], /stored: .*\n/);
      try {
        expect(loaded.stdout.split('\n')[3]).toBe(
          `  stored: ${times.length} events, ${utc(Math.min(...times))} to ${utc(Math.max(...times))} UTC`,
        );
      } finally {
        await loaded.stop();
      }
    });

    it('loads the demo into ./data-demo, never into ./data, your own data', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'lens-demo-cwd-'));
      try {
        const demo = await serveLens(['--demo'], /stored: .*\n/, { cwd });
        await demo.stop();
        expect(existsSync(join(cwd, 'data-demo'))).toBe(true);
        expect(existsSync(join(cwd, 'data'))).toBe(false);
        const lines = demo.stdout.split('\n');
        expect(lines[1]).toBe(`  data:   ${join(cwd, 'data-demo')} (SQLite)`);
        expect(lines[2]).toBe(
          '  demo:   a generated day of traffic ending now, in its own directory; your own data are in ./data (serve without --demo)',
        );
        expect(lines[3]).toBe(
          '  packs:  events older than 48 h into compressed blocks, in the background (--hot-window; off: never)',
        );
        expect(lines[4]).toMatch(
          /^ {2}stored: [\d,]+ events, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
        );
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    }, 120_000);
  });
});
