import { randomUUID } from "node:crypto";
import type { AgentConnector, AgentInfo, ExecuteContext } from "../router/core/agent.js";
import { AsyncQueue } from "../router/core/async-queue.js";
import type { AgentUpdate } from "../router/core/model.js";
import { HUB_METHODS } from "./protocol.js";
import { messageToWire } from "./translate.js";

/** What a hub agent needs from its current connection. */
export interface HubLink {
  send(frame: object): void;
}

/** One task the agent is working on: its updates, and whether it already streamed text. */
export interface TaskChannel {
  queue: AsyncQueue<AgentUpdate>;
  sawText: boolean;
  /** Id of the task.execute request, while the agent has not answered it. */
  requestId?: string;
}

/**
 * A WebSocket hub agent as the engine sees it. It outlives its connections: when the agent drops, it
 * stays listed (offline) and each task it had in flight fails; when it registers again it is reattached.
 */
export class HubAgent implements AgentConnector {
  info: AgentInfo;
  /** The token that registered it (name ownership follows the token). */
  token: string | undefined;
  #link: HubLink | undefined;
  #tasks = new Map<string, TaskChannel>();
  /** task.execute request id -> task id, until the agent answers it. */
  #executeIds = new Map<string, string>();

  constructor(info: AgentInfo) {
    this.info = info;
  }

  isOnline(): boolean {
    return this.#link !== undefined;
  }

  get inFlight(): number {
    return this.#tasks.size;
  }

  attach(link: HubLink, info: AgentInfo, token: string | undefined): void {
    this.#link = link;
    this.info = info;
    this.token = token;
  }

  /** Ends every task in flight with `reason` and goes offline. */
  detach(reason: string): void {
    this.#link = undefined;
    for (const [, channel] of this.#tasks) channel.queue.end(new Error(reason));
    this.#tasks.clear();
    this.#executeIds.clear();
  }

  channel(taskId: string): TaskChannel | undefined {
    return this.#tasks.get(taskId);
  }

  /** Called once the task's final update was queued. */
  release(taskId: string): void {
    const channel = this.#tasks.get(taskId);
    if (!channel) return;
    channel.queue.end();
    if (channel.requestId) this.#executeIds.delete(channel.requestId);
    this.#tasks.delete(taskId);
  }

  execute(ctx: ExecuteContext): AsyncIterable<AgentUpdate> {
    const link = this.#link;
    if (!link) throw new Error(`Agent ${this.info.id} is not connected.`);
    const taskId = ctx.task.id;
    const channel: TaskChannel = { queue: new AsyncQueue(), sawText: false };
    this.#tasks.set(taskId, channel);
    ctx.signal.addEventListener("abort", () => {
      if (this.#tasks.get(taskId) === channel) this.release(taskId);
    }, { once: true });
    const requestId = randomUUID();
    channel.requestId = requestId;
    this.#executeIds.set(requestId, taskId);
    link.send({
      jsonrpc: "2.0",
      id: requestId,
      method: HUB_METHODS.TASK_EXECUTE,
      params: {
        id: taskId,
        sessionId: ctx.task.contextId,
        message: messageToWire(ctx.message),
        metadata: { ...ctx.metadata, ...(ctx.skill && { skill: ctx.skill }) },
      },
    });
    return channel.queue;
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
    if (channel) channel.requestId = undefined;
    if (!error || !channel) return;
    const why = typeof error.message === "string" ? error.message : "no reason given";
    channel.queue.end(new Error(`Agent ${this.info.id} refused the task: ${why}`));
    this.#tasks.delete(taskId);
  }

  async cancel(taskId: string): Promise<void> {
    this.#link?.send({ jsonrpc: "2.0", id: randomUUID(), method: HUB_METHODS.TASK_CANCEL, params: { task_id: taskId } });
  }
}
