import { type Command, type CommanderError, Option } from "commander";
import {
  agentsCommand,
  cancelCommand,
  type CliIO,
  getCommand,
  reportError,
  resubscribeCommand,
  sendCommand,
  streamCommand,
} from "./commands.js";
import { EXIT } from "./exit-codes.js";
import { type CommonOptions, DEFAULT_ROUTER_URL, ENV, type MessageOptions, taskIdFrom } from "./options.js";

export { EXIT, exitCodeForState, CliError } from "./exit-codes.js";

const processIO: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  onInterrupt(handler) {
    process.once("SIGINT", handler);
    return () => process.off("SIGINT", handler);
  },
};

/** Commander usage errors exit 2; --help and --version exit 0. Commander has already printed the reason. */
function usageExit(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? EXIT.COMPLETED : EXIT.USAGE);
}

function commonOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--url <url>", "router base URL").env(ENV.URL).default(DEFAULT_ROUTER_URL))
    .addOption(new Option("--api-key <key>", "client API key (sent as Authorization: Bearer)").env(ENV.API_KEY))
    .option("--json", "print one JSON object a line on stdout (logs stay on stderr)")
    // Usage errors stay one line (commander's message names the option); --help has the rest.
    .showHelpAfterError(false)
    .exitOverride(usageExit);
}

function messageOptions(cmd: Command): Command {
  return commonOptions(cmd)
    .option("--agent <id>", "agent id or name (metadata.agent); default: the router's default agent")
    .option("--session <id>", "session id (v0.1 sessionId) to continue a conversation")
    .option("--task <id>", "task id; reuse one to answer an input-required task (default: a new uuid)")
    .option("--skill <name>", "skill to use (metadata.skill)")
    .option("--metadata <json>", "extra task metadata, a JSON object");
}

/** Runs a command body, turning its outcome into process.exitCode and any error into one stderr line. */
async function run(body: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await body();
  } catch (err) {
    process.exitCode = reportError(processIO, err);
  }
}

const EXIT_CODES_HELP = `
Exit codes: 0 completed, 1 failed, 2 usage error, 3 canceled, 4 input-required, 5 cannot reach the router.
Environment: ${ENV.URL} (default ${DEFAULT_ROUTER_URL}), ${ENV.API_KEY}.`;

/** A command that sends a message: `[text...]` (default: stdin) and the message options. */
function messageCommand(program: Command, name: string, description: string): Command {
  return messageOptions(program.command(name).description(description).argument("[text...]", "message text (default: read stdin)"));
}

/** A command on one task, named by the `[taskId]` argument or `--task`. */
function taskCommand(program: Command, name: string, description: string): Command {
  const cmd = program.command(name).description(description).argument("[taskId]", "task id (or --task)");
  return commonOptions(cmd).option("--task <id>", "task id");
}

/** The action of a messageCommand: runs `command` on the text and the parsed options. */
function messageAction(command: (text: string[], options: MessageOptions, io: CliIO) => Promise<number>) {
  return (text: string[], _opts: unknown, cmd: Command) =>
    run(() => command(text, cmd.optsWithGlobals<MessageOptions>(), processIO));
}

/** The action of a taskCommand: runs `command` on the task id (argument or --task) and the parsed options. */
function taskAction<O extends CommonOptions>(command: (taskId: string, options: O, io: CliIO) => Promise<number>) {
  return (taskId: string | undefined, _opts: unknown, cmd: Command) =>
    run(() => {
      const opts = cmd.optsWithGlobals<O & { task?: string }>();
      return command(taskIdFrom(taskId, opts.task), opts, processIO);
    });
}

/** Adds the client commands (send, stream, resubscribe, get, cancel, agents) to the binary. */
export function registerClientCommands(program: Command): void {
  messageCommand(program, "send", "send a message (tasks/send) and print the answer once the turn ends")
    .addHelpText("after", `\nExamples:\n  a2a-router send --agent echo "hello"\n  echo "hello" | a2a-router send --json\n${EXIT_CODES_HELP}`)
    .action(messageAction(sendCommand));

  messageCommand(program, "stream", "send a message (tasks/sendSubscribe) and print the answer as it arrives")
    .addHelpText(
      "after",
      `\nCtrl-C stops following; the task goes on and the command to resume it is printed.\n` +
        `With --json each event is one line: the v0.1 event, plus "seq" (its Last-Event-ID) when logged.\n${EXIT_CODES_HELP}`,
    )
    .action(messageAction(streamCommand));

  taskCommand(program, "resubscribe", "follow a task's stream again (tasks/resubscribe)")
    .option("--last-event-id <seq>", "resume after this event (exactly the events after it, no gap, no duplicate)")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(taskAction(resubscribeCommand));

  taskCommand(program, "get", "print a task (tasks/get); exits by its state (0 while it runs)")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(taskAction(getCommand));

  taskCommand(program, "cancel", "cancel a task (tasks/cancel); exits 0 once it is canceled")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(taskAction(cancelCommand));

  commonOptions(program.command("agents").description("list the router's agents (GET /agents)"))
    .addHelpText("after", EXIT_CODES_HELP)
    .action((_opts: unknown, cmd: Command) => run(() => agentsCommand(cmd.optsWithGlobals<CommonOptions>(), processIO)));
}
