/** A failure the CLI explains in one line and answers with an exit code, instead of a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
