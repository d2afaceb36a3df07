import { CliError, EXIT } from "./exit-codes.js";
import { type CommonOptions, requireNonEmpty } from "./options.js";
import { type CliIO, jsonLine, note } from "./output.js";
import { openTarget, requireOperation } from "./target.js";
import type { ClientPushConfig } from "../dialects/index.js";

export interface PushOptions extends CommonOptions {
  pushUrl?: string;
  pushToken?: string;
  configId?: string;
}

function printConfigs(io: CliIO, configs: ClientPushConfig[]): void {
  if (configs.length === 0) note(io, "no push notification configs");
  for (const c of configs) {
    io.stdout.write(`${[c.taskId, c.id ?? "-", c.url, c.token !== undefined ? "(token set)" : ""].join("  ").trimEnd()}\n`);
  }
}

/** `push set`: registers a webhook for the task's updates (tasks/pushNotification/set & co.). */
export async function pushSetCommand(taskId: string, options: PushOptions, io: CliIO): Promise<number> {
  const url = requireNonEmpty(options.pushUrl, "--push-url");
  if (url === undefined) throw CliError.usage("--push-url is required: the webhook that receives the task's updates");
  try {
    new URL(url);
  } catch {
    throw CliError.usage(`--push-url must be an absolute URL, got "${url}"`);
  }
  const token = requireNonEmpty(options.pushToken, "--push-token");
  const id = requireNonEmpty(options.configId, "--config-id");
  const { client, codec } = await openTarget(options);
  const result = await client.call(codec.pushSet({ taskId, url, ...(token !== undefined && { token }), ...(id !== undefined && { id }) }));
  const config = codec.readPush(result);
  if (options.json) jsonLine(io, result);
  else printConfigs(io, [config]);
  return EXIT.COMPLETED;
}

/** `push get`: the task's config (by --config-id in v0.3/v1.0; v1.0 without one lists them all). */
export async function pushGetCommand(taskId: string, options: PushOptions, io: CliIO): Promise<number> {
  const id = requireNonEmpty(options.configId, "--config-id");
  const { client, codec } = await openTarget(options);
  if (codec.dialect === "v1.0" && id === undefined) return pushListCommand(taskId, options, io);
  const result = await client.call(codec.pushGet(taskId, id));
  const config = codec.readPush(result);
  if (options.json) jsonLine(io, result);
  else printConfigs(io, [config]);
  return EXIT.COMPLETED;
}

/** `push list`: every config of the task (v0.3, v1.0). */
export async function pushListCommand(taskId: string, options: PushOptions, io: CliIO): Promise<number> {
  // v0.1 has no list: a router (which speaks every dialect at its root) is asked in v1.0.
  const { client, codec } = await openTarget(options, "v1.0");
  const list = requireOperation(codec.pushList, codec, "listing push notification configs");
  const result = await client.call(list(taskId));
  const configs = codec.readPushList!(result);
  if (options.json) jsonLine(io, result);
  else printConfigs(io, configs);
  return EXIT.COMPLETED;
}

/** `push delete`: removes one config (v0.3, v1.0). */
export async function pushDeleteCommand(taskId: string, options: PushOptions, io: CliIO): Promise<number> {
  const id = requireNonEmpty(options.configId, "--config-id");
  if (id === undefined) throw CliError.usage("--config-id is required: `a2a-router push list --task ID` shows the ids");
  const { client, codec } = await openTarget(options, "v1.0");
  const remove = requireOperation(codec.pushDelete, codec, "deleting a push notification config");
  const result = await client.call(remove(taskId, id));
  if (options.json) jsonLine(io, result ?? null);
  else io.stdout.write(`deleted push notification config ${id} of task ${taskId}\n`);
  return EXIT.COMPLETED;
}
