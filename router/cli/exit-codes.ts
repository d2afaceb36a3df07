/** The CLI's exit codes (docs/contract.md section 8): the only place they are spelled. */
export const EXIT = {
  COMPLETED: 0,
  FAILED: 1,
  USAGE: 2,
  CANCELED: 3,
  INPUT_REQUIRED: 4,
  UNREACHABLE: 5,
  /** Ctrl-C on a stream: the shell convention for SIGINT (128 + 2). The task goes on. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as one line on stderr, exiting with `exitCode`. Never shows a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = "CliError";
  }

  static usage(message: string): CliError {
    return new CliError(message, EXIT.USAGE);
  }
}

/**
 * Exit code for a task state: the outcome of send/stream/resubscribe and what get reports.
 * A task still running (submitted, working) is not a failure of the command: 0.
 */
export function exitCodeForState(state: string | undefined): number {
  switch (state) {
    case "failed":
    case "rejected":
    case "unknown":
    case undefined:
      return EXIT.FAILED;
    case "canceled":
      return EXIT.CANCELED;
    case "input-required":
    case "auth-required":
      return EXIT.INPUT_REQUIRED;
    default:
      return EXIT.COMPLETED;
  }
}
