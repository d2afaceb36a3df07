import { isTerminal, REJECTION_KEY, type TaskState } from "../router/core/model.js";
import { HubRefusal } from "./wire/errors.js";
import type { HubAgentConnector } from "./hub-agent-connector.js";
import { HUB_METHODS, type ArtifactParams, type StatusParams } from "./protocol.js";
import type { DurableSink, TaskChannel } from "./task-channel.js";
import { artifactUpdate, hasText, statusUpdate, streamedTextKind } from "./translate.js";

/** What a task update is acked with, once it is durable. */
const ACK = { ok: true } as const;

/** The hub methods that carry an agent's task updates. */
export const TASK_UPDATE_METHODS: ReadonlySet<string> = new Set([HUB_METHODS.TASK_STATUS, HUB_METHODS.TASK_ARTIFACT, HUB_METHODS.TASK_COMPLETE]);

/**
 * Routes one task update (params already checked against the method's schema) to the task's turn. `sink` is
 * told whether it is durable: true once the store has it, false when the turn ended before it was stored (see
 * `ackOf` for the agent's answer). Throws the refusal of an update that cannot be routed at all (then `sink` is
 * not told).
 */
export function routeTaskUpdate(
  agent: HubAgentConnector | undefined,
  method: string,
  params: StatusParams | ArtifactParams,
  sink: DurableSink,
  bytes: number,
): void {
  const channel = owned(agent, params.task_id);
  if (params.seq !== undefined) {
    // Re-sent after a reconnect, and taken the first time: ack it again once that first copy is durable.
    if (params.seq <= channel.lastSeq) {
      void channel.latest.then((durable) => sink.settled(durable, bytes, params.task_id));
      return;
    }
    channel.lastSeq = params.seq;
  }
  switch (method) {
    case HUB_METHODS.TASK_STATUS:
      return status(agent!, channel, params as StatusParams, sink, bytes);
    case HUB_METHODS.TASK_ARTIFACT:
      return channel.send(artifactUpdate(params as ArtifactParams), sink, bytes, params.task_id);
    default:
      return complete(agent!, channel, params as StatusParams, sink, bytes);
  }
}

/**
 * The answer to a task update sent as a request (with an id): `{ok: true}` once it is durable, or the refusal.
 * Made only for those: an update sent as a notification costs no promise of its own.
 */
export function ackOf(durable: Promise<boolean>, taskId: string): Promise<unknown> {
  return durable.then((ok) => {
    if (ok) return ACK;
    throw notStored(taskId);
  });
}

/** Why an update was not stored: its turn ended first. */
export function notStored(taskId: string): HubRefusal {
  return HubRefusal.invalidParams(`task ${taskId} ended before this update was stored`, "task_id", { taskId });
}

/**
 * Protocol 2: a turn the agent ends `rejected` before it sent any other update rejects the request, as an
 * error answer to `task.execute` does (a blocking send answers with an error, REJECTION_KEY). The SDK's
 * `{state: "rejected"}` takes this way.
 */
function rejects(agent: HubAgentConnector, channel: TaskChannel, p: StatusParams): boolean {
  return agent.protocol === 2 && p.status.state === "rejected" && channel.pushed === 0;
}

function rejection(agent: HubAgentConnector, channel: TaskChannel, p: StatusParams, sink: DurableSink, bytes: number): void {
  const update = statusUpdate(p, true, "snapshot");
  channel.send({ ...update, metadata: { ...update.metadata, [REJECTION_KEY]: true } }, sink, bytes, p.task_id);
  agent.release(p.task_id);
}

function status(agent: HubAgentConnector, channel: TaskChannel, p: StatusParams, sink: DurableSink, bytes: number): void {
  if (rejects(agent, channel, p)) return rejection(agent, channel, p, sink, bytes);
  if (!channel.sawText && hasText(p.status.message)) channel.sawText = true;
  const final = p.final === true || isTerminal(p.status.state as TaskState);
  channel.send(statusUpdate(p, final, final ? "snapshot" : streamedTextKind(p)), sink, bytes, p.task_id);
  if (final) agent.release(p.task_id);
}

function complete(agent: HubAgentConnector, channel: TaskChannel, p: StatusParams, sink: DurableSink, bytes: number): void {
  if (rejects(agent, channel, p)) return rejection(agent, channel, p, sink, bytes);
  // A non-streaming agent's only message is shown first as a working status (the two-event rule, 5.7):
  // the whole answer at once, so a snapshot.
  if (!channel.sawText && hasText(p.status.message)) {
    void channel.push(statusUpdate({ task_id: p.task_id, status: { state: "working", message: p.status.message } }, false, "snapshot"));
  }
  channel.send(statusUpdate(p, true, "snapshot"), sink, bytes, p.task_id);
  agent.release(p.task_id);
}

function owned(agent: HubAgentConnector | undefined, taskId: string): TaskChannel {
  if (!agent) throw HubRefusal.invalidRequest("register with agent.register before sending task updates");
  const channel = agent.channel(taskId);
  if (!channel) throw notAssigned(agent, taskId);
  return channel;
}

function notAssigned(agent: HubAgentConnector, taskId: string): HubRefusal {
  return HubRefusal.invalidParams(`task ${taskId} is not assigned to agent ${agent.info.id}`, "task_id", { taskId });
}
