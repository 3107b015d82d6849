import { ServiceError } from '../services/service-error.ts';
import { classifyCommand } from './classify.ts';
import { CliError } from './cli-error.ts';
import { demoCommand } from './demo.ts';
import { ingestCommand } from './ingest.ts';
import { reportCommand } from './report.ts';
import { serveCommand } from './serve.ts';

/** How a log that is no native NDJSON (an access log, .gz too) is read: its format, and what names its lines. */
const LOG_FLAGS =
  '[--format auto|native|nginx-json|nginx-combined|envoy|envoy-json] [--server NAME] [--client NAME] [--protocol mcp|a2a]';

const COMMANDS: Record<string, { run: (args: string[]) => Promise<number>; usage: string }> = {
  serve: {
    run: serveCommand,
    usage:
      'serve [--port N] [--host H] [--data-dir DIR] [--demo] [--allow-origin URL] [--allow-host NAME] [--allow-target HOST[:PORT]] [--max-body BYTES] [--proxy-map FILE]',
  },
  ingest: {
    run: ingestCommand,
    usage: `ingest FILE... --url URL [--batch-lines N] [--restart] [--skip-bad-lines] ${LOG_FLAGS}`,
  },
  classify: {
    run: classifyCommand,
    usage: `classify [--discovery FILE] [--proxy-map FILE] ${LOG_FLAGS} LOG...   (one JSON line per event, the logs merged in time order)`,
  },
  report: {
    run: reportCommand,
    usage: `report [--discovery FILE] [--proxy-map FILE] ${LOG_FLAGS} LOG...   (one JSON document: the dashboard, offline)`,
  },
  demo: { run: demoCommand, usage: 'demo [--data-dir DIR]   (a generated day of federation traffic, ending now)' },
};

function usage(): string {
  return `usage: npm run lens -- <command>\n\n${Object.values(COMMANDS)
    .map((c) => `  ${c.usage}`)
    .join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(name === undefined || name === 'help' ? usage() : `unknown command "${name}"\n\n${usage()}`);
    return name === undefined || name === 'help' ? 0 : 2;
  }
  try {
    return await command.run(args);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`lens ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof ServiceError) {
      // A service's refusal (the CLI's one mapping of it): what went wrong and what to do, not a stack trace.
      const fix = error.fix === undefined ? '' : ` ${error.fix}`;
      process.stderr.write(`lens ${name}: ${error.message} (${error.code}).${fix}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
