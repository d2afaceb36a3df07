import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { AgentConnector, AgentInfo, ExecuteContext } from "../router/core/agent.js";
import type { AgentUpdate } from "../router/core/model.js";
import { agentText, MESSAGE_ANSWER_KEY, REJECTION_KEY, TEXT_KIND_KEY } from "../router/core/model.js";
import { HUB_METHODS } from "./protocol.js";
import { TaskChannel } from "./task-channel.js";
import { messageFromWire, messageToWire } from "./translate.js";
import { CONTINUATION_KEY, hubRequest, type ExecuteParams, type ExecuteResult, type HubProtocol } from "./wire/frames.js";

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
  /** The hub protocol version the agent registered with (docs/hub-protocol.md). */
  protocol: HubProtocol = 1;

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

  /**
   * (Re)attaches the agent to a connection. `running`: the tasks an agent coming back says it still runs
   * (absent: it did not say). A task in flight it lists goes on as it is; one it does not list was lost with
   * the agent and is sent again, as a new run; an agent that says nothing gets again only the executes it
   * never answered (they may have died with the old link).
   */
  attach(link: HubLink, info: AgentInfo, token: string | undefined, logger?: Logger, protocol: HubProtocol = 1, running?: readonly string[]): void {
    if (this.#grace) {
      clearTimeout(this.#grace);
      this.#grace = undefined;
      logger?.info({ agent: info.id, inFlight: this.#tasks.size }, "hub agent resumed its tasks");
    }
    this.#link = link;
    this.info = info;
    this.token = token;
    this.protocol = protocol;
    const still = running && new Set(running);
    for (const [taskId, channel] of this.#tasks) {
      if (!channel.executeFrame) continue;
      if (still?.has(taskId)) {
        // It runs the task: whatever became of our execute, it was taken.
        if (channel.requestId) this.#executeIds.delete(channel.requestId);
        channel.requestId = undefined;
        continue;
      }
      if (!still && !channel.requestId) continue;
      if (!channel.requestId) {
        // Taken once, then lost with the agent: a new run, whose updates are numbered from 1 again.
        channel.requestId = String(channel.executeFrame.id);
        this.#executeIds.set(channel.requestId, taskId);
        channel.lastSeq = 0;
      }
      link.send(channel.executeFrame);
    }
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
    ctx.signal.addEventListener(
      "abort",
      () => {
        if (this.#tasks.get(taskId) === channel) this.release(taskId);
      },
      { once: true },
    );
    const requestId = randomUUID();
    channel.requestId = requestId;
    this.#executeIds.set(requestId, taskId);
    channel.executeFrame = hubRequest(requestId, HUB_METHODS.TASK_EXECUTE, this.#executeParams(ctx));
    link.send(channel.executeFrame);
    return channel.updates();
  }

  /**
   * `task.execute` params in the agent's protocol version. A task that has logged events before is taking its
   * next turn after `input-required`: the execute names it with its existing id and says so (CONTINUATION_KEY).
   */
  #executeParams(ctx: ExecuteContext): ExecuteParams {
    const { id: taskId, contextId } = ctx.task;
    const metadata: Record<string, unknown> = { ...ctx.metadata, ...(ctx.skill && { skill: ctx.skill }) };
    // The router's word, not the client's: a client's own `continuation` never reaches the agent.
    if (ctx.task.lastSeq > 0) metadata[CONTINUATION_KEY] = true;
    else delete metadata[CONTINUATION_KEY];
    if (this.protocol !== 2) return { id: taskId, sessionId: contextId, message: messageToWire(ctx.message), metadata };
    const message = messageToWire({ ...ctx.message, taskId, contextId }, 2, { taskId, contextId });
    return { id: taskId, contextId, message, metadata };
  }

  /**
   * The agent answered a request of ours. An error answer to `task.execute` means it refused the task: with
   * protocol 1 the task fails with the agent's message; with protocol 2 the turn ends `rejected` with it, marked
   * so that a blocking send answers with an error naming the agent's reason (REJECTION_KEY; a stream shows the
   * `rejected` status). A protocol 2 answer carrying a bare message is the whole
   * answer: the turn completes with it, as an upstream agent's bare Message does, marked so that v0.3/v1.0
   * sends answer with the Message itself (MESSAGE_ANSWER_KEY).
   */
  answered(requestId: string, error: { message?: unknown } | undefined, result?: unknown, resultIssue?: string): void {
    const taskId = this.#executeIds.get(requestId);
    if (taskId === undefined) return;
    this.#executeIds.delete(requestId);
    const channel = this.#tasks.get(taskId);
    if (!channel) return;
    channel.requestId = undefined;
    if (this.protocol === 2) return this.#answeredV2(taskId, channel, error, result as ExecuteResult | undefined, resultIssue);
    if (!error) return;
    const why = typeof error.message === "string" ? error.message : "no reason given";
    channel.end(new Error(`Agent ${this.info.id} refused the task: ${why}`));
    this.#tasks.delete(taskId);
  }

  /** `resultIssue`: why the answer's message is not one (the hub read it against the hub schema). */
  #answeredV2(taskId: string, channel: TaskChannel, error: { message?: unknown } | undefined, result: ExecuteResult | undefined, resultIssue?: string): void {
    // Kept: an agent that comes back saying it lost the task gets it again (see attach).
    if (error) {
      const why = typeof error.message === "string" && error.message !== "" ? error.message : `Agent ${this.info.id} rejected the request.`;
      const metadata = { [TEXT_KIND_KEY]: "snapshot", [REJECTION_KEY]: true };
      void channel.push({ kind: "status", status: { state: "rejected", message: agentText(why) }, final: true, metadata });
      this.release(taskId);
      return;
    }
    const message = result?.message;
    if (message === undefined) return;
    let answer: ReturnType<typeof messageFromWire> | undefined;
    try {
      if (!resultIssue) answer = messageFromWire(message);
    } catch {
      answer = undefined;
    }
    if (!answer) {
      channel.end(new Error(`Agent ${this.info.id} answered with a message the router cannot read${resultIssue ? `: ${resultIssue}` : ""}.`));
      this.#tasks.delete(taskId);
      return;
    }
    const metadata = { [TEXT_KIND_KEY]: "snapshot", [MESSAGE_ANSWER_KEY]: true };
    void channel.push({ kind: "status", status: { state: "completed", message: answer }, final: true, metadata });
    this.release(taskId);
  }

  async cancel(taskId: string): Promise<void> {
    if (this.#link) this.#sendCancel(taskId);
    else if (this.#grace) this.#missedCancels.add(taskId);
  }

  #sendCancel(taskId: string): void {
    this.#link?.send(hubRequest(randomUUID(), HUB_METHODS.TASK_CANCEL, { task_id: taskId }));
  }

  #failInFlight(reason: string): void {
    for (const channel of this.#tasks.values()) channel.end(new Error(reason));
    this.#tasks.clear();
    this.#executeIds.clear();
    this.#missedCancels.clear();
  }
}
