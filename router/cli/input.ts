import { CliError } from "./exit-codes.js";

/** Where the message text is read from when no argument gives it. */
export interface TextSource extends AsyncIterable<string | Buffer> {
  isTTY?: boolean;
}

/**
 * The message text: the arguments joined by spaces, else all of stdin (one trailing newline dropped,
 * so `echo hi | a2a-router send` sends "hi"). A terminal on stdin with no argument is a usage error
 * rather than a silent wait.
 */
export async function readMessageText(args: readonly string[], stdin: TextSource): Promise<string> {
  if (args.length > 0) {
    const text = args.join(" ");
    if (text.trim() === "") throw CliError.usage("the message text is empty");
    return text;
  }
  if (stdin.isTTY) throw CliError.usage("no message text: pass it as an argument or pipe it on stdin");
  let text = "";
  for await (const chunk of stdin) text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  text = text.replace(/\r?\n$/, "");
  if (text.trim() === "") throw CliError.usage("no message text: stdin was empty");
  return text;
}
