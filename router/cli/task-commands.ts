import { A2AClient } from "./client.js";
import { CliError, EXIT, exitCodeForState } from "./exit-codes.js";
import { type CommonOptions, parseRouterUrl, parseTaskState, parseWholeNumber, requireNonEmpty } from "./options.js";
import { type CliIO, jsonLine, note, printTaskText, textOf } from "./output.js";
import { openTarget, readCard, requireOperation } from "./target.js";
import { isRecord } from "../dialects/index.js";

/** `get`: the task; the exit code follows its state (0 while it runs). */
export async function getCommand(taskId: string, options: CommonOptions, io: CliIO): Promise<number> {
  const { client, codec } = await openTarget(options);
  const result = await client.call(codec.get(taskId));
  const task = codec.readTask(result);
  if (options.json) jsonLine(io, result);
  else {
    io.stdout.write(`task ${task.id}: ${task.status.state}\n`);
    printTaskText(io, task, true);
  }
  return exitCodeForState(task.status.state);
}

/** `cancel`: exits 0 once the task is canceled. */
export async function cancelCommand(taskId: string, options: CommonOptions, io: CliIO): Promise<number> {
  const { client, codec } = await openTarget(options);
  const result = await client.call(codec.cancel(taskId));
  const task = codec.readTask(result);
  const state = task.status.state;
  if (options.json) jsonLine(io, result);
  else io.stdout.write(`task ${task.id || taskId}: ${state}\n`);
  return state === "canceled" ? EXIT.COMPLETED : exitCodeForState(state);
}

export interface ListOptions extends CommonOptions {
  context?: string;
  state?: string;
  pageSize?: string;
  pageToken?: string;
}

/** `list`: ListTasks (v1.0), one task a line; the next page's token on stderr. */
export async function listCommand(options: ListOptions, io: CliIO): Promise<number> {
  const state = parseTaskState(options.state);
  const pageSize = parseWholeNumber(options.pageSize, "--page-size", 1, 100);
  const contextId = requireNonEmpty(options.context, "--context");
  const pageToken = requireNonEmpty(options.pageToken, "--page-token");
  // The router speaks every dialect at its root: ListTasks is v1.0's.
  const { client, codec } = await openTarget(options, "v1.0");
  const list = requireOperation(codec.list, codec, "listing tasks (ListTasks)");
  const result = await client.call(
    list({
      ...(contextId !== undefined && { contextId }),
      ...(state !== undefined && { state }),
      ...(pageSize !== undefined && { pageSize }),
      ...(pageToken !== undefined && { pageToken }),
    }),
  );
  const page = codec.readList!(result);
  if (options.json) {
    jsonLine(io, result);
    return EXIT.COMPLETED;
  }
  for (const task of page.tasks) {
    const text = textOf(task.status.message?.parts).replace(/\s+/g, " ").trim();
    io.stdout.write(`${[task.id, task.status.state, task.contextId ?? "", text].join("  ").trimEnd()}\n`);
  }
  if (page.tasks.length === 0) note(io, "no tasks");
  if (page.nextPageToken) note(io, `more: --page-token ${page.nextPageToken}`);
  return EXIT.COMPLETED;
}

/** `card`: the target's agent card, as JSON (pretty on a terminal, one line with --json). */
export async function cardCommand(options: CommonOptions, io: CliIO): Promise<number> {
  const url = parseRouterUrl(options.url);
  const client = new A2AClient(url, requireNonEmpty(options.apiKey, "--api-key"));
  const found = await readCard(client, url);
  if (!found) {
    const at = url.href.replace(/\/+$/, "");
    const origin = url.origin === at ? "" : ` or at ${url.origin}`;
    throw new CliError(`no agent card at ${at}/.well-known/agent-card.json or agent.json${origin}`, EXIT.FAILED);
  }
  if (options.json) jsonLine(io, found.card);
  else {
    io.stdout.write(`${JSON.stringify(found.card, null, 2)}\n`);
    note(io, `card: ${found.cardUrl}`);
  }
  return EXIT.COMPLETED;
}

interface AgentListing {
  id: string;
  name?: string;
  transport?: string;
  online?: boolean;
  card?: { description?: string };
}

/** `agents`: the router's GET /agents, one line per agent. */
export async function agentsCommand(options: CommonOptions, io: CliIO): Promise<number> {
  const base = parseRouterUrl(options.url);
  const client = new A2AClient(base, requireNonEmpty(options.apiKey, "--api-key"));
  const url = new URL(`${base.pathname.replace(/\/+$/, "")}/agents`, base);
  const answer = await client.getJson(url);
  if (!answer) throw new CliError(`${url} did not answer JSON: is --url an a2a-router?`, EXIT.FAILED);
  client.checkStatus(answer.status, answer.body);
  const agents = isRecord(answer.body) && Array.isArray(answer.body.agents) ? (answer.body.agents as AgentListing[]) : undefined;
  if (!agents) throw new CliError(`${url} did not answer an agent list`, EXIT.FAILED);
  if (options.json) {
    for (const agent of agents) jsonLine(io, agent);
    return EXIT.COMPLETED;
  }
  if (agents.length === 0) {
    note(io, "no agents");
    return EXIT.COMPLETED;
  }
  const rows = agents.map((a) => [a.id, a.transport ?? "", a.online === false ? "offline" : "online", a.card?.description ?? a.name ?? ""]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) {
    io.stdout.write(
      `${row
        .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
        .join("  ")
        .trimEnd()}\n`,
    );
  }
  return EXIT.COMPLETED;
}
