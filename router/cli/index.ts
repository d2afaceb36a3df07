import { type Command, type CommanderError, Option } from "commander";
import { EXIT } from "./exit-codes.js";
import { resubscribeCommand, sendCommand, streamCommand } from "./message-commands.js";
import { type CommonOptions, DEFAULT_ROUTER_URL, ENV, type MessageOptions, taskIdFrom } from "./options.js";
import { type CliIO, reportError } from "./output.js";
import { processIO } from "./process-io.js";
import { pushDeleteCommand, pushGetCommand, pushListCommand, pushSetCommand } from "./push-commands.js";
import { agentsCommand, cancelCommand, cardCommand, getCommand, type ListOptions, listCommand } from "./task-commands.js";

export { EXIT, exitCodeForState, CliError } from "./exit-codes.js";

// Created once, at load: it also guards process.stdout/stderr against EPIPE for commander's own output.
const io: CliIO = processIO();

/** Commander usage errors exit 2; --help and --version exit 0. Commander has already printed the reason. */
function usageExit(err: CommanderError): never {
  process.exit(err.exitCode === 0 ? EXIT.COMPLETED : EXIT.USAGE);
}

function commonOptions(cmd: Command): Command {
  return (
    cmd
      .addOption(new Option("--url <url>", "the target: a router's base URL or any A2A agent's URL").env(ENV.URL).default(DEFAULT_ROUTER_URL))
      .addOption(new Option("--api-key <key>", "client API key (sent as Authorization: Bearer)").env(ENV.API_KEY))
      .addOption(
        new Option("--a2a-version <version>", "A2A dialect to speak: 0.1, 0.3 or 1.0 (default: from the target's agent card; 0.1 for a router)").env(
          ENV.A2A_VERSION,
        ),
      )
      .option("--json", "print one JSON object a line on stdout (logs stay on stderr)")
      // Usage errors stay one line (commander's message names the option); --help has the rest.
      .showHelpAfterError(false)
      .exitOverride(usageExit)
  );
}

function messageOptions(cmd: Command): Command {
  return commonOptions(cmd)
    .option("--agent <id>", "agent id or name (metadata.agent); default: the router's default agent")
    .option("--session <id>", "session id (v0.1 sessionId, v0.3/v1.0 contextId) to continue a conversation")
    .option("--task <id>", "task id; reuse one to answer an input-required task (v0.1 default: a new uuid)")
    .option("--skill <name>", "skill to use (metadata.skill)")
    .option("--metadata <json>", "extra task metadata, a JSON object");
}

/** Runs a command body, turning its outcome into process.exitCode and any error into one stderr line. */
async function run(body: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await body();
  } catch (err) {
    process.exitCode = reportError(io, err);
  }
}

const EXIT_CODES_HELP = `
Exit codes: 0 completed, 1 failed, 2 usage error, 3 canceled, 4 input-required, 5 cannot reach the target.
Environment: ${ENV.URL} (default ${DEFAULT_ROUTER_URL}), ${ENV.API_KEY}, ${ENV.A2A_VERSION}.`;

/** A command that sends a message: `[text...]` (default: stdin) and the message options. */
function messageCommand(program: Command, name: string, description: string): Command {
  return messageOptions(program.command(name).description(description).argument("[text...]", "message text (default: read stdin)"));
}

/** A command on one task, named by the `[taskId]` argument or `--task`. */
function taskCommand(parent: Command, name: string, description: string): Command {
  const cmd = parent.command(name).description(description).argument("[taskId]", "task id (or --task)");
  return commonOptions(cmd).option("--task <id>", "task id");
}

/** The action of a messageCommand: runs `command` on the text and the parsed options. */
function messageAction(command: (text: string[], options: MessageOptions, io: CliIO) => Promise<number>) {
  return (text: string[], _opts: unknown, cmd: Command) => run(() => command(text, cmd.optsWithGlobals<MessageOptions>(), io));
}

/** The action of a taskCommand: runs `command` on the task id (argument or --task) and the parsed options. */
function taskAction<O extends CommonOptions>(command: (taskId: string, options: O, io: CliIO) => Promise<number>) {
  return (taskId: string | undefined, _opts: unknown, cmd: Command) =>
    run(() => {
      const opts = cmd.optsWithGlobals<O & { task?: string }>();
      return command(taskIdFrom(taskId, opts.task), opts, io);
    });
}

/** The action of a command with options only. */
function plainAction<O extends CommonOptions>(command: (options: O, io: CliIO) => Promise<number>) {
  return (_opts: unknown, cmd: Command) => run(() => command(cmd.optsWithGlobals<O>(), io));
}

/** Adds the client commands (send, stream, resubscribe, get, cancel, list, card, push, agents) to the binary. */
export function registerClientCommands(program: Command): void {
  messageCommand(program, "send", "send a message (tasks/send, message/send, SendMessage) and print the answer once the turn ends")
    .addHelpText("after", `\nExamples:\n  a2a-router send --agent echo "hello"\n  echo "hello" | a2a-router send --json\n${EXIT_CODES_HELP}`)
    .action(messageAction(sendCommand));

  messageCommand(program, "stream", "send a message (tasks/sendSubscribe, message/stream, SendStreamingMessage) and print the answer as it arrives")
    .addHelpText(
      "after",
      `\nThe answer goes to stdout, status lines (progress) to stderr.\n` +
        `Ctrl-C stops following; the task goes on and the command to resume it is printed.\n` +
        `With --json each event is one line: the event's result as the target sent it, plus "seq" (its Last-Event-ID) when logged.\n${EXIT_CODES_HELP}`,
    )
    .action(messageAction(streamCommand));

  taskCommand(program, "resubscribe", "follow a task's stream again (tasks/resubscribe, SubscribeToTask)")
    .option("--last-event-id <seq>", "resume after this event (exactly the events after it, no gap, no duplicate)")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(taskAction(resubscribeCommand));

  taskCommand(program, "get", "print a task (tasks/get, GetTask); exits by its state (0 while it runs)")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(taskAction(getCommand));

  taskCommand(program, "cancel", "cancel a task (tasks/cancel, CancelTask); exits 0 once it is canceled")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(taskAction(cancelCommand));

  commonOptions(program.command("list").description("list tasks (ListTasks, A2A v1.0): ID  STATE  CONTEXT  STATUS TEXT, one a line"))
    .option("--context <id>", "only the tasks of this context (session)")
    .option("--state <state>", "only tasks in this state (working, completed, input-required, ...)")
    .option("--page-size <n>", "tasks per page (1-100; default: the target's)")
    .option("--page-token <token>", "the page to read (printed on stderr after a page that has more)")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(plainAction<ListOptions>(listCommand));

  commonOptions(program.command("card").description("print the target's agent card (<url>/.well-known/agent-card.json, then agent.json)"))
    .addHelpText("after", EXIT_CODES_HELP)
    .action(plainAction(cardCommand));

  const push = program.command("push").description("a task's push notification configs (webhooks), in the target's dialect").exitOverride(usageExit);
  const pushCommand = (name: string, description: string) =>
    taskCommand(push, name, description).option("--config-id <id>", "the config's id (v0.3/v1.0)").addHelpText("after", EXIT_CODES_HELP);
  pushCommand("set", "set a webhook for the task's updates")
    .option("--push-url <url>", "the webhook URL (required)")
    .option("--push-token <token>", "a token the webhook receives with each notification")
    .action(taskAction(pushSetCommand));
  pushCommand("get", "print the task's config (v1.0 without --config-id: all of them)").action(taskAction(pushGetCommand));
  pushCommand("list", "list the task's configs (v0.3, v1.0)").action(taskAction(pushListCommand));
  pushCommand("delete", "delete one of the task's configs (v0.3, v1.0; --config-id required)").action(taskAction(pushDeleteCommand));

  commonOptions(program.command("agents").description("list the router's agents (GET /agents)"))
    .addHelpText("after", EXIT_CODES_HELP)
    .action(plainAction(agentsCommand));
}
