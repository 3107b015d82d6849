import { HOST_FORMATS, isHostFormat } from '../../shared/host-logs/detect.ts';
import { LOG_FORMATS } from '../../shared/log-formats.ts';

/**
 * What `lens --help` and `lens COMMAND --help` say: each command's synopsis, what it does and its options. The one
 * place the options are described; a parse error prints the synopsis from here too.
 */

export interface CommandHelp {
  synopsis: string;
  /** One line for the command list. */
  summary: string;
  /** What the command does, in a few lines. */
  about: string;
  /** `[flag, what it does]`, in the order a newcomer needs them. */
  options: readonly (readonly [string, string])[];
}

/** How an access log (or any log) is read, for the commands that read logs. */
const LOG_OPTIONS = [
  [
    '--format F',
    `auto (default: detected per file), ${LOG_FORMATS.filter((f) => !isHostFormat(f)).join(', ')}, or a host log: ` +
      HOST_FORMATS.join(', '),
  ],
  ['--server NAME', "every access-log line is this server's (else routes, discovery or the client records name it)"],
  ['--client NAME', "every access-log line is this client's (else its user agent, else its address)"],
  ['--protocol mcp|a2a', 'the protocol of access-log lines (default mcp)'],
  [
    '--tz ZONE',
    "a host log's local times are in this IANA zone (VS Code, Cursor, LibreChat; default: this machine's zone)",
  ],
  ['--start ISO', "a host log that writes no times starts then (default: the file's last change)"],
] as const;

const OFFLINE_OPTIONS = [
  ['--discovery FILE', 'one discovery document for every server, or {"servers":{"NAME":DOCUMENT}}'],
  ['--proxy-map FILE', 'which server an access-log line belongs to, by host and path prefix'],
  ...LOG_OPTIONS,
] as const;

export const HELP = {
  serve: {
    synopsis: 'serve [options]',
    summary: 'the dashboard, the API and /metrics on http://127.0.0.1:7700',
    about:
      'Serves the dashboard and the API over the data directory (SQLite), or PostgreSQL when DATABASE_URL is set.\n' +
      'With --demo a generated day of traffic is loaded first, into ./data-demo unless --data-dir says otherwise:\n' +
      'your own data (./data) never get the demo mixed in.',
    options: [
      ['--port N', 'the port (default 7700, or PORT)'],
      ['--host H', 'the address to listen on (default 127.0.0.1, or HOST); any other needs LENS_TOKEN'],
      ['--data-dir DIR', 'where the embedded store lives (default ./data, or DATA_DIR; ./data-demo with --demo)'],
      ['--demo', 'load a generated day of federation traffic, ending now'],
      ['--public-url URL', "the dashboard's address as people reach it, for links in notifications"],
      ['--allow-origin URL', 'let that origin call the API from a browser (repeatable)'],
      ['--allow-host NAME', 'answer to that Host name too (repeatable)'],
      ['--allow-target HOST[:PORT]', 'let alert notifications reach that internal address (repeatable)'],
      ['--max-body BYTES', 'the largest ingest body, also after decompression (default 16 MiB)'],
      ['--proxy-map FILE', 'which server an access-log line belongs to, by host and path prefix'],
      ['--max-analysis-lag SECONDS', 'past this lag ingest answers 503 analysis_behind (default 300)'],
      ['--retain-events 30d', 'how long raw events are kept'],
      ['--retain-counts 400d', 'how long hour counts and storms are kept'],
      ['--hot-window 48h', 'pack older events into compressed blocks (default 48h, at least 2h; off: never; ADR 21)'],
      ['--metrics-label-sets N', 'label sets per /metrics family before the rest are summed as other (default 500)'],
    ],
  },
  ingest: {
    synopsis: 'ingest [options] FILE... --url URL',
    summary: 'ship log files to a running server; resumes where it stopped',
    about:
      'Sends NDJSON and access logs (.gz too) to a running server in batches. Where each file stopped is saved, so\n' +
      'running the same command again sends only what is new. A server that does not answer is tried again for\n' +
      '--give-up-after, then the command stops, saying what was sent and how to go on.',
    options: [
      ['--url URL', 'the server, e.g. http://127.0.0.1:7700 (LENS_TOKEN is sent as its bearer token)'],
      ['--batch-lines N', 'lines per request (default 5000)'],
      ['--give-up-after 5m', 'how long to keep trying a server that does not answer or is busy (s, m or h)'],
      ['--restart', 'send each file from its start again (the server stores nothing twice)'],
      ['--state FILE', 'where the resume points are kept (default ~/.local/state/refusal-lens/ingest.json)'],
      ['--skip-bad-lines', 'send the lines after one that is not UTF-8, listing it, instead of stopping'],
      ...LOG_OPTIONS,
    ],
  },
  classify: {
    synopsis: 'classify [options] LOG...',
    summary: 'offline: one JSON line per event with its bucket, kind and rule',
    about:
      'Classifies each event of the logs, merged in time order, as the server would: one JSON line per event with\n' +
      'its time, client, server, method, status and code beside the bucket, kind, rule and gate verdict.\n' +
      'Without --discovery a 404 cannot be judged and reads as unclassifiable_no_discovery.',
    options: OFFLINE_OPTIONS,
  },
  report: {
    synopsis: 'report [options] LOG...',
    summary: "offline: the dashboard's numbers as a summary (--json: the whole document)",
    about:
      "The dashboard's numbers over the logs, offline: requests by bucket, servers and clients by avoidable\n" +
      'requests, storms, denials that did not hold, identities, context gap, actionability. A client log and its\n' +
      "proxy's access log count each request once.",
    options: [['--json', 'the whole report as one JSON document instead of the summary'], ...OFFLINE_OPTIONS],
  },
  tap: {
    synopsis: 'tap --server NAME (--out FILE | --url URL) [options] -- COMMAND [ARGS]',
    summary: 'record a stdio or HTTP MCP server: traffic passed through untouched, events written',
    about:
      'Stands where a host starts a stdio MCP server: starts COMMAND and passes every byte both ways unchanged,\n' +
      "writing one native event per request (both frames, latency, timeouts) and the server's stderr lines and\n" +
      'exit. With --listen PORT --upstream URL instead of -- COMMAND it does the same as a reverse proxy for\n' +
      'Streamable HTTP on 127.0.0.1. Events go to --out FILE (NDJSON, appended) or --url URL (a running lens,\n' +
      'spooled on disk while it is away). A failure to record never stops the traffic; losses are said at exit.',
    options: [
      ['--server NAME', 'the server, as the host names it (HTTP: default the upstream host)'],
      ['--client NAME', "the host (default: the name its initialize gives, else 'host'; HTTP: else its user agent)"],
      ['--out FILE', 'append the events to FILE'],
      ['--url URL', 'send the events to a running server, e.g. http://127.0.0.1:7700 (LENS_TOKEN as its token)'],
      ['--spool DIR', 'where events wait for --url (default ~/.local/state/refusal-lens/tap)'],
      ['--timeout 60s', 'a request unanswered this long is a timeout (s, m or h)'],
      ['--listen PORT', 'HTTP: the port to listen on, on 127.0.0.1'],
      ['--upstream URL', 'HTTP: the MCP server to pass requests to, e.g. http://127.0.0.1:3000/mcp'],
    ],
  },
  demo: {
    synopsis: 'demo [options]',
    summary: 'load the generated demo day into its own data directory',
    about:
      'Loads a generated day of federation traffic, ending now, into ./data-demo (or --data-dir), or into\n' +
      'PostgreSQL when DATABASE_URL is set. `serve --demo` does the same before serving.',
    options: [['--data-dir DIR', 'where to load it (default ./data-demo)']],
  },
  'citus-setup': {
    synopsis: 'citus-setup [--dry-run]',
    summary: 'place the tables of a migrated PostgreSQL on a Citus cluster (ADR 14)',
    about:
      'On the Citus coordinator at DATABASE_URL, migrates the store, then distributes each table by server\n' +
      '(co-located with events), or as db/distribution.ts lists it: by another column, a reference table, or\n' +
      'kept on the coordinator. Tables already placed are left alone, so it can run again; a database without\n' +
      'the citus extension is refused before anything changes.',
    options: [['--dry-run', 'print the calls without running them']],
  },
} as const satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof HELP;

const PROGRAM = 'npm run lens --';

/** `lens --help`: the commands, one line each. */
export function programHelp(): string {
  const names = Object.keys(HELP) as CommandName[];
  const width = Math.max(...names.map((name) => name.length));
  const lines = names.map((name) => `  ${name.padEnd(width)}   ${HELP[name].summary}`);
  return (
    `usage: ${PROGRAM} <command> [options]\n\n${lines.join('\n')}\n\n` +
    `${PROGRAM} <command> --help says what a command does and lists its options.\n`
  );
}

/** `lens COMMAND --help`. */
export function commandHelp(name: CommandName): string {
  const help: CommandHelp = HELP[name];
  const width = Math.max(...help.options.map(([flag]) => flag.length));
  const options = help.options.map(([flag, what]) => `  ${flag.padEnd(width)}   ${what}`);
  return `${synopsis(name)}\n\n${help.about}\n\noptions:\n${options.join('\n')}\n`;
}

export function synopsis(name: CommandName): string {
  return `usage: ${PROGRAM} ${HELP[name].synopsis}`;
}
