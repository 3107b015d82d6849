/** A failure the CLI explains in one line and answers with an exit code, instead of a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A command line that cannot be run as given (a missing argument, an unknown option): said with the synopsis. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}
