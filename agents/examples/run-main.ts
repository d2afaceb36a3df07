import { pathToFileURL } from "node:url";

/** Whether the module at `moduleUrl` is the script node was started with (so examples run or import). */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === moduleUrl;
}

/** Closes `close` on Ctrl-C / SIGTERM (docker stop) so the agent leaves the hub cleanly. */
export function closeOnSignals(close: () => Promise<void>): void {
  const stop = (signal: NodeJS.Signals) => {
    process.stderr.write(`${signal}: closing\n`);
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
