import { ServiceError } from '../services/service-error.ts';
import { CliError, UsageError } from './cli-error.ts';
import { type CommandName, commandHelp, HELP, programHelp, synopsis } from './help.ts';

type Command = (args: string[]) => Promise<number>;

/**
 * Each command loaded when it runs: `classify` or `tap` need neither the server nor the database drivers, and every
 * module not loaded is startup time a host (which starts `lens tap` with each server) does not wait for.
 */
const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  serve: async () => (await import('./serve.ts')).serveCommand,
  ingest: async () => (await import('./ingest.ts')).ingestCommand,
  classify: async () => (await import('./classify.ts')).classifyCommand,
  report: async () => (await import('./report.ts')).reportCommand,
  tap: async () => (await import('./tap.ts')).tapCommand,
  demo: async () => (await import('./demo.ts')).demoCommand,
  'citus-setup': async () => (await import('./citus-setup.ts')).citusSetupCommand,
};

const HELP_FLAGS = new Set(['--help', '-h']);

function isCommand(name: string | undefined): name is CommandName {
  return name !== undefined && Object.hasOwn(HELP, name);
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || HELP_FLAGS.has(name) || name === 'help') {
    const [topic] = args;
    process.stdout.write(isCommand(topic) ? commandHelp(topic) : programHelp());
    return 0;
  }
  if (!isCommand(name)) {
    process.stderr.write(`lens: unknown command "${name}"\n\n${programHelp()}`);
    return 2;
  }
  // What follows `--` is another program's command line (lens tap): its --help is its own.
  const end = args.indexOf('--');
  if ((end === -1 ? args : args.slice(0, end)).some((arg) => HELP_FLAGS.has(arg))) {
    process.stdout.write(commandHelp(name));
    return 0;
  }
  try {
    return await (await COMMANDS[name]())(args);
  } catch (error) {
    const usage = usageProblem(error);
    if (usage !== undefined) {
      process.stderr.write(
        `lens ${name}: ${usage}\n${synopsis(name)}\n(npm run lens -- ${name} --help lists its options)\n`,
      );
      return 2;
    }
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

/**
 * What is wrong with the command line, when that is what failed: our own usage errors, and node:util parseArgs's
 * (an unknown option, an option without its value), said in a line of our own rather than as a stack trace.
 */
function usageProblem(error: unknown): string | undefined {
  if (error instanceof UsageError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) return undefined;
  const message = error instanceof Error ? error.message : '';
  const quoted = /'([^']*)'/.exec(message)?.[1];
  const option = quoted?.split(' ')[0];
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument "${quoted}": this command takes none`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option ?? message}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return message.includes('argument missing') ? `${option} needs a value` : `${option} takes no value`;
  }
  return message;
}

process.exitCode = await main(process.argv.slice(2));
