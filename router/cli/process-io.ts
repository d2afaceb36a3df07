import type { CliIO } from "./output.js";
import type { PrinterOutput } from "./stream-printer.js";

/**
 * A process stream the CLI may write to after its reader has gone (`a2a-router get T | head -1`): the
 * pipe's EPIPE (and any other write error) would otherwise be an unhandled 'error' event, that is, a stack
 * trace and exit 1. Once the stream has failed, writes are dropped: the command still ends the normal way
 * and exits with the code of what it printed. Node ignores SIGPIPE, so the error event is all there is.
 */
export function guardedOutput(stream: NodeJS.WriteStream): PrinterOutput {
  let broken = false;
  stream.on("error", () => {
    broken = true;
  });
  return {
    write(text: string, callback?: () => void): boolean {
      if (broken || stream.destroyed) {
        callback?.();
        return false;
      }
      return stream.write(text, callback);
    },
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
  } as PrinterOutput;
}

/** The binary's IO: guarded stdout/stderr, process stdin, SIGINT. */
export function processIO(): CliIO {
  return {
    stdout: guardedOutput(process.stdout),
    stderr: guardedOutput(process.stderr),
    stdin: process.stdin,
    onInterrupt(handler) {
      process.once("SIGINT", handler);
      return () => process.off("SIGINT", handler);
    },
  };
}
