import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { AgentConnector, AgentInfo, ExecuteContext } from "../router/core/agent.js";
import type { AgentUpdate } from "../router/core/model.js";
import { HUB_METHODS } from "./protocol.js";
import { TaskChannel } from "./task-channel.js";
import { messageToWire } from "./translate.js";

/** What a hub agent needs from its current connection. */
export interface HubLink {
  send(frame: object): void;
}

/**
 * A WebSocket hub agent as the engine sees it (the router side of the hub). It outlives its connections:
 * when the agent drops, it stays listed (offline) and its tasks in flight wait out the resume grace; when
 * the agent registers again in time it is reattached and the tasks go on, else each of them fails.
 */
export class HubAgentConnector implements AgentConnector {
  info: AgentInfo;
  /** The token that registered it (name ownership follows the token). */
  token: string | undefined;
  #link: HubLink | undefined;
  #tasks = new Map<string, TaskChannel>();
  /** task.execute request id -> task id, until the agent answers it. */
  #executeIds = new Map<string, string>();
  #grace: NodeJS.Timeout | undefined;
  /** Cancels the engine asked for while the agent was away, told once it is back. */
  #missedCancels = new Set<string>();

  constructor(info: AgentInfo) {
    this.info = info;
  }

  isOnline(): boolean {
    return this.#link !== undefined;
  }

  get inFlight(): number {
    return this.#tasks.size;
  }

  /** Whether the agent dropped and its tasks are waiting for it to come back. */
  get resuming(): boolean {
    return this.#grace !== undefined;
  }

  attach(link: HubLink, info: AgentInfo, token: string | undefined, logger?: Logger): void {
    if (this.#grace) {
      clearTimeout(this.#grace);
      this.#grace = undefined;
      logger?.info({ agent: info.id, inFlight: this.#tasks.size }, "hub agent resumed its tasks");
    }
    this.#link = link;
    this.info = info;
    this.token = token;
    // A task.execute the agent never answered may have died with the old link: it is sent again (the SDK
    // takes a second execute of a turn it is running as the same turn).
    for (const channel of this.#tasks.values()) if (channel.requestId && channel.executeFrame) link.send(channel.executeFrame);
    for (const taskId of this.#missedCancels) this.#sendCancel(taskId);
    this.#missedCancels.clear();
  }

  /**
   * Goes offline. Tasks in flight fail with `reason` at once, or after `graceMs` unless the agent has
   * registered again by then.
   */
  detach(reason: string, graceMs = 0): void {
    this.#link = undefined;
    if (graceMs > 0 && this.#tasks.size > 0) {
      clearTimeout(this.#grace);
      this.#grace = setTimeout(() => {
        this.#grace = undefined;
        this.#failInFlight(reason);
      }, graceMs);
      this.#grace.unref();
      return;
    }
    this.#failInFlight(reason);
  }

  /** Stops waiting for the agent (router shutdown): the engine has already ended the tasks. */
  dispose(): void {
    clearTimeout(this.#grace);
    this.#grace = undefined;
  }

  channel(taskId: string): TaskChannel | undefined {
    return this.#tasks.get(taskId);
  }

  /** Called once the task's final update was pushed. */
  release(taskId: string): void {
    const channel = this.#tasks.get(taskId);
    if (!channel) return;
    channel.end();
    if (channel.requestId) this.#executeIds.delete(channel.requestId);
    this.#tasks.delete(taskId);
  }

  execute(ctx: ExecuteContext): AsyncIterable<AgentUpdate> {
    const link = this.#link;
    if (!link) throw new Error(`Agent ${this.info.id} is not connected.`);
    const taskId = ctx.task.id;
    const channel = new TaskChannel(ctx.flushed);
    this.#tasks.set(taskId, channel);
    ctx.signal.addEventListener("abort", () => {
      if (this.#tasks.get(taskId) === channel) this.release(taskId);
    }, { once: true });
    const requestId = randomUUID();
    channel.requestId = requestId;
    this.#executeIds.set(requestId, taskId);
    channel.executeFrame = {
      jsonrpc: "2.0",
      id: requestId,
      method: HUB_METHODS.TASK_EXECUTE,
      params: {
        id: taskId,
        sessionId: ctx.task.contextId,
        message: messageToWire(ctx.message),
        metadata: { ...ctx.metadata, ...(ctx.skill && { skill: ctx.skill }) },
      },
    };
    link.send(channel.executeFrame);
    return channel.updates();
  }

  /**
   * The agent answered a request of ours. An error answer to `task.execute` means it refused the task:
   * the task fails with the agent's message instead of waiting for the task timeout.
   */
  answered(requestId: string, error: { message?: unknown } | undefined): void {
    const taskId = this.#executeIds.get(requestId);
    if (taskId === undefined) return;
    this.#executeIds.delete(requestId);
    const channel = this.#tasks.get(taskId);
    if (channel) channel.requestId = channel.executeFrame = undefined;
    if (!error || !channel) return;
    const why = typeof error.message === "string" ? error.message : "no reason given";
    channel.end(new Error(`Agent ${this.info.id} refused the task: ${why}`));
    this.#tasks.delete(taskId);
  }

  async cancel(taskId: string): Promise<void> {
    if (this.#link) this.#sendCancel(taskId);
    else if (this.#grace) this.#missedCancels.add(taskId);
  }

  #sendCancel(taskId: string): void {
    this.#link?.send({ jsonrpc: "2.0", id: randomUUID(), method: HUB_METHODS.TASK_CANCEL, params: { task_id: taskId } });
  }

  #failInFlight(reason: string): void {
    for (const channel of this.#tasks.values()) channel.end(new Error(reason));
    this.#tasks.clear();
    this.#executeIds.clear();
    this.#missedCancels.clear();
  }
}
