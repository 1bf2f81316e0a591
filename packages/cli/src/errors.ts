/** An error the user can act on: printed as one line, and the process exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Exit code of a run the user stopped (Ctrl-C at a prompt), as shells report SIGINT. */
export const INTERRUPTED_EXIT_CODE = 130;

/** Exit code of a command that ran, but deliveries it sent or waited for did not succeed (the contract's 3). */
export const DELIVERY_FAILED_EXIT_CODE = 3;
