import { EventEmitter } from "node:events";
import { HubRefusal } from "../../hub/wire/errors.js";
import { AgentOptionsError, AgentRefusedError } from "./errors.js";
import { HubLink, type HubError } from "./link.js";
import { settingsFrom, type Settings } from "./options.js";
import { Outbox } from "./outbox.js";
import { HUB_METHODS, type ExecuteParams, type JsonRpcRequest } from "./protocol.js";
import { isTransientRefusal, registerParams, type SkillEntry } from "./registration.js";
import { TaskDispatcher } from "./task-dispatch.js";
import type { Agent, AgentEvents, ConnectAgentOptions, RegisteredEvent, SkillDefinition, SkillHandler } from "./types.js";

/**
 * The agent side of the hub (the router side is the hub's HubAgentConnector): registers under a name,
 * stays registered across drops, and runs the tasks the hub hands it. The link, the outbox of task
 * updates and the task dispatcher each live in their own module; this class ties them together.
 */
class HubAgentClient implements Agent {
  readonly ready: Promise<RegisteredEvent>;
  #settings: Settings;
  #events = new EventEmitter();
  #skills = new Map<string, SkillEntry>();
  #link: HubLink;
  #outbox: Outbox;
  #tasks: TaskDispatcher;
  #registered = false;
  #everRegistered = false;
  #agentId: string | undefined;
  #connectionId: string | undefined;
  #closed = false;
  #readySettled = false;
  #resolveReady!: (event: RegisteredEvent) => void;
  #rejectReady!: (error: Error) => void;

  constructor(options: ConnectAgentOptions) {
    this.#settings = settingsFrom(options);
    this.ready = new Promise<RegisteredEvent>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.#link = new HubLink(this.#settings, {
      opened: () => this.#register(),
      request: (frame) => this.#onRequest(frame),
      closed: (code, reason) => this.#onClose(code, reason),
      reconnecting: (attempt, delayMs) => this.#events.emit("reconnecting", { attempt, delayMs }),
      fatal: (error) => this.#fail(error),
    });
    this.#outbox = new Outbox(this.#link, this.#settings);
    this.#tasks = new TaskDispatcher({
      name: this.#settings.name,
      concurrency: this.#settings.concurrency,
      logger: this.#settings.logger,
      outbox: this.#outbox,
      skills: this.#skills,
      onTask: (event) => this.#events.emit("task", event),
    });
    this.#link.connect();
  }

  get agentId(): string | undefined {
    return this.#agentId;
  }

  get connected(): boolean {
    return this.#registered;
  }

  skill(definition: SkillDefinition, handler: SkillHandler): Agent {
    if (typeof definition !== "object" || definition === null) throw new AgentOptionsError("skill definition", "must be an object");
    const { name, description = "", id = definition.name } = definition;
    if (typeof name !== "string" || name.trim() === "") throw new AgentOptionsError("skill.name", "must be a non-empty string");
    if (typeof description !== "string") throw new AgentOptionsError("skill.description", "must be a string");
    if (typeof id !== "string" || id === "") throw new AgentOptionsError("skill.id", "must be a non-empty string");
    if (typeof handler !== "function") throw new AgentOptionsError(`handler of skill "${name}"`, "must be a function");
    if (this.#skills.has(name)) throw new AgentOptionsError("skill.name", `"${name}" is already defined`);
    this.#skills.set(name, { definition: { ...definition, id, name, description }, handler });
    return this;
  }

  on<E extends keyof AgentEvents>(event: E, listener: (...args: AgentEvents[E]) => void): Agent {
    this.#events.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  off<E extends keyof AgentEvents>(event: E, listener: (...args: AgentEvents[E]) => void): Agent {
    this.#events.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  async close(): Promise<void> {
    if (this.#closed && !this.#link.hasSocket) return;
    this.#stop(new Error("agent closed"));
    if (!this.#readySettled) {
      this.ready.catch(() => {});
      this.#settleReady(new Error(`agent "${this.#settings.name}" was closed before it registered`));
    }
    await this.#link.stop();
  }

  #register(): void {
    const { name, registerTimeoutMs } = this.#settings;
    const params = registerParams(this.#settings, [...this.#skills.values()], this.#everRegistered ? this.#stillRunning() : []);
    this.#link.request(HUB_METHODS.REGISTER, params, registerTimeoutMs).then(
      (result) => this.#onRegistered(result),
      (error: HubError) => {
        if (this.#closed || !error.rpc) return; // the link dropped first: it redials
        const refusal = error.rpc.message;
        if (isTransientRefusal(refusal, this.#everRegistered)) {
          this.#settings.logger.warn(`hub still holds the previous link of "${name}"; retrying`);
          this.#link.redial();
          return;
        }
        this.#fail(new AgentRefusedError(`hub refused agent "${name}": ${refusal}`, error.rpc.code, error.rpc.data));
      },
    );
  }

  /** Tasks this agent still has: turns running, and updates not yet acked by the hub. */
  #stillRunning(): string[] {
    const ids = this.#outbox.taskIds();
    for (const id of this.#tasks.runningIds()) ids.add(id);
    return [...ids];
  }

  #onRegistered(result: unknown): void {
    if (this.#closed) return;
    const agentId = (result as { agent_id?: unknown })?.agent_id;
    this.#agentId = typeof agentId === "string" ? agentId : this.#settings.name;
    this.#registered = true;
    const event: RegisteredEvent = {
      agentId: this.#agentId,
      ...(this.#connectionId && { connectionId: this.#connectionId }),
      reconnected: this.#everRegistered,
    };
    this.#everRegistered = true;
    this.#link.established();
    this.#outbox.online();
    this.#settings.logger.info(`registered as "${this.#agentId}"${event.reconnected ? " again" : ""} at ${this.#link.url}`);
    this.#settleReady(undefined, event);
    this.#events.emit("registered", event);
  }

  #onClose(code: number, reason: string): void {
    const wasRegistered = this.#registered;
    this.#registered = false;
    this.#outbox.offline();
    if (wasRegistered) this.#events.emit("disconnected", { code, reason });
  }

  #onRequest(frame: JsonRpcRequest): void {
    const params = (frame.params ?? {}) as Record<string, unknown>;
    switch (frame.method) {
      case HUB_METHODS.CONNECTION_ESTABLISHED:
        if (typeof params.connection_id === "string") this.#connectionId = params.connection_id;
        return;
      case HUB_METHODS.HEARTBEAT_ACK:
        return;
      case HUB_METHODS.HEARTBEAT:
        this.#link.respond(frame.id, { ok: true });
        return;
      case HUB_METHODS.TASK_EXECUTE: {
        if (this.#closed) return;
        const refusal = this.#tasks.execute(params as unknown as ExecuteParams);
        if (refusal) this.#link.respondError(frame.id, refusal);
        else this.#link.respond(frame.id, { accepted: true });
        return;
      }
      case HUB_METHODS.TASK_CANCEL:
        this.#tasks.cancel(String(params.task_id ?? ""));
        this.#link.respond(frame.id, { ok: true });
        return;
      default:
        this.#link.respondError(frame.id, HubRefusal.methodNotFound(frame.method).toJSON());
    }
  }

  #settleReady(error: Error | undefined, event?: RegisteredEvent): void {
    if (this.#readySettled) return;
    this.#readySettled = true;
    if (error) this.#rejectReady(error);
    else this.#resolveReady(event!);
  }

  /** Stops for good: refusals and giving up. The error goes to `ready`, the `error` event and the log. */
  #fail(error: Error): void {
    if (this.#closed) return;
    this.#stop(error);
    this.#settings.logger.error(error.message);
    if (this.#events.listenerCount("error") > 0) {
      this.ready.catch(() => {});
      this.#events.emit("error", error);
    }
    this.#settleReady(error);
    void this.#link.stop();
  }

  #stop(reason: Error): void {
    this.#closed = true;
    this.#tasks.stop(reason);
    this.#outbox.close();
    void this.#link.stop();
  }
}

/**
 * Connects an agent to the router's hub and keeps it connected. Add skills right away (same tick);
 * `await agent.ready` to know it is registered. `url` may list several hubs (router instances sharing
 * one store): they are tried in turn on reconnect.
 *
 * @example
 * const agent = connectAgent({ url: "ws://127.0.0.1:8080/hub", name: "poet" });
 * agent.skill({ name: "verse", description: "Writes a verse" }, async function* (text) {
 *   for (const word of text.split(" ")) yield word + " ";
 * });
 * await agent.ready;
 */
export function connectAgent(options: ConnectAgentOptions): Agent {
  return new HubAgentClient(options);
}
