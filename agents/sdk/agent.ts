import { EventEmitter } from "node:events";
import PQueue from "p-queue";
import WebSocket from "ws";
import { RPC_ERROR_CODES } from "../../router/rpc/errors.js";
import { backoffDelay } from "./backoff.js";
import { AgentOptionsError, AgentRefusedError } from "./errors.js";
import { DEFAULTS, FATAL_UPGRADE_STATUSES, type Settings, settingsFrom } from "./options.js";
import {
  artifactParams as artifactFrame,
  type ExecuteParams,
  HUB_METHODS,
  isRequest,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  parseFrame,
  statusParams as statusFrame,
  textOf,
} from "./protocol.js";
import { runTask } from "./task-runner.js";
import type {
  Agent,
  AgentEvents,
  ArtifactInput,
  ConnectAgentOptions,
  Message,
  RegisteredEvent,
  SkillDefinition,
  SkillHandler,
  TaskContext,
} from "./types.js";

interface SkillEntry {
  definition: Required<Pick<SkillDefinition, "id" | "name" | "description">> & SkillDefinition;
  handler: SkillHandler;
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface KeptFrame {
  method: string;
  params: { task_id: string };
}

function isGeneratorFunction(fn: unknown): boolean {
  const name = (fn as { constructor?: { name?: string } })?.constructor?.name;
  return name === "AsyncGeneratorFunction" || name === "GeneratorFunction";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One agent's link to the hub: registration, heartbeats, reconnects, and the tasks the hub hands it.
 * Frames for tasks are sent while registered and kept (in order, bounded) otherwise.
 */
class HubAgent implements Agent {
  readonly ready: Promise<RegisteredEvent>;
  #settings: Settings;
  #events = new EventEmitter();
  #skills = new Map<string, SkillEntry>();
  #queue: PQueue;
  #tasks = new Map<string, AbortController>();
  #ws: WebSocket | undefined;
  #registered = false;
  #everRegistered = false;
  #agentId: string | undefined;
  #connectionId: string | undefined;
  #closed = false;
  #attempt = 0;
  #nextId = 1;
  #pending = new Map<JsonRpcId, Pending>();
  #kept: KeptFrame[] = [];
  #droppedWarned = false;
  /** Heartbeats sent since the hub last sent anything (frame or ping). */
  #unanswered = 0;
  #lastError: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #readySettled = false;
  #resolveReady!: (event: RegisteredEvent) => void;
  #rejectReady!: (error: Error) => void;

  constructor(options: ConnectAgentOptions) {
    this.#settings = settingsFrom(options);
    this.#queue = new PQueue({ concurrency: this.#settings.concurrency });
    this.ready = new Promise<RegisteredEvent>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.#connect();
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
    if (this.#closed && !this.#ws) return;
    this.#stop(new Error("agent closed"));
    if (!this.#readySettled) {
      this.ready.catch(() => {});
      this.#settleReady(new Error(`agent "${this.#settings.name}" was closed before it registered`));
    }
    await this.#closeSocket();
  }

  // ---- link -------------------------------------------------------------------------------------

  #connect(): void {
    const { url, token } = this.#settings;
    const ws = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    this.#ws = ws;
    ws.on("open", () => {
      this.#unanswered = 0;
      this.#register(ws);
    });
    ws.on("message", (data, isBinary) => {
      this.#unanswered = 0;
      if (!isBinary) this.#onFrame(ws, data.toString());
    });
    ws.on("ping", () => {
      this.#unanswered = 0;
    });
    ws.on("unexpected-response", (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < DEFAULTS.refusalBodyBytes) body += chunk;
      });
      res.on("end", () => {
        if (FATAL_UPGRADE_STATUSES.has(status)) {
          const detail = body.trim().slice(0, DEFAULTS.refusalBodyBytes) || res.statusMessage || "";
          this.#fail(new AgentRefusedError(`hub refused agent "${this.#settings.name}": HTTP ${status} ${detail}`.trim(), status));
        } else {
          this.#settings.logger.warn(`hub answered the upgrade with HTTP ${status}; retrying`);
        }
        ws.terminate();
      });
      res.on("error", () => ws.terminate());
    });
    ws.on("error", (err) => {
      this.#lastError = err.message;
      this.#settings.logger.debug(`hub link error: ${err.message}`);
    });
    ws.on("close", (code, reason) => this.#onClose(ws, code, reason.toString()));
  }

  #register(ws: WebSocket): void {
    const { name, token, card, streaming } = this.#settings;
    const skills = [...this.#skills.values()].map((s) => s.definition);
    const streams = streaming ?? [...this.#skills.values()].some((s) => isGeneratorFunction(s.handler));
    const params = {
      agent_name: name,
      ...(token && { auth_token: token }),
      card: {
        name,
        description: `${name} (a2a-router SDK agent)`,
        ...card,
        capabilities: { streaming: streams, ...(card?.capabilities as object | undefined) },
        skills,
      },
      skills,
      streaming: streams,
    };
    this.#request(ws, HUB_METHODS.REGISTER, params).then(
      (result) => this.#onRegistered(ws, result),
      (error: Error & { rpc?: JsonRpcResponse["error"] }) => {
        if (ws !== this.#ws || !error.rpc) return; // the link dropped first: the close handler retries
        const refusal = error.rpc.message;
        if (this.#everRegistered && /already connected/i.test(refusal)) {
          // Our previous link may still look alive to the hub until it notices the drop: try again later.
          this.#settings.logger.warn(`hub still holds the previous link of "${name}"; retrying`);
          ws.close();
          return;
        }
        this.#fail(new AgentRefusedError(`hub refused agent "${name}": ${refusal}`, error.rpc.code, error.rpc.data));
      },
    );
  }

  #onRegistered(ws: WebSocket, result: unknown): void {
    if (ws !== this.#ws || this.#closed) return;
    const agentId = (result as { agent_id?: unknown })?.agent_id;
    this.#agentId = typeof agentId === "string" ? agentId : this.#settings.name;
    this.#registered = true;
    this.#attempt = 0;
    this.#lastError = undefined;
    const event: RegisteredEvent = {
      agentId: this.#agentId,
      ...(this.#connectionId && { connectionId: this.#connectionId }),
      reconnected: this.#everRegistered,
    };
    this.#everRegistered = true;
    this.#startHeartbeat(ws);
    this.#flushKept();
    this.#settings.logger.info(`registered as "${this.#agentId}"${event.reconnected ? " again" : ""}`);
    this.#settleReady(undefined, event);
    this.#events.emit("registered", event);
  }

  #onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.#ws) return;
    this.#ws = undefined;
    const wasRegistered = this.#registered;
    this.#registered = false;
    this.#stopHeartbeat();
    const dropped = new Error(`hub link closed (${code})`);
    for (const pending of this.#pending.values()) pending.reject(dropped);
    this.#pending.clear();
    if (wasRegistered) this.#events.emit("disconnected", { code, reason });
    if (this.#closed) return;
    const { reconnect } = this.#settings;
    if (reconnect === false) {
      const why = this.#lastError ? `: ${this.#lastError}` : ` (${code})`;
      this.#fail(new Error(`hub link to ${this.#settings.url} closed${why}; reconnect is off`));
      return;
    }
    const delayMs = backoffDelay(this.#attempt, reconnect.initialDelayMs, reconnect.maxDelayMs);
    this.#attempt += 1;
    this.#settings.logger.debug(`hub link closed (${code}); reconnecting in ${delayMs} ms`);
    this.#events.emit("reconnecting", { attempt: this.#attempt, delayMs });
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (!this.#closed) this.#connect();
    }, delayMs);
  }

  #startHeartbeat(ws: WebSocket): void {
    this.#stopHeartbeat();
    const { heartbeatMs } = this.#settings;
    // Silence is counted in heartbeats sent without any answer, not in elapsed time: an agent whose own
    // event loop stalled (a busy handler, a long GC) must not take its stall for a silent hub.
    this.#heartbeat = setInterval(() => {
      if (this.#unanswered >= DEFAULTS.unansweredHeartbeats) {
        this.#settings.logger.warn(`no frame from the hub for ${DEFAULTS.unansweredHeartbeats} heartbeats; reconnecting`);
        ws.terminate();
        return;
      }
      // An id so a hub that only answers requests still acks; the answer needs no bookkeeping.
      this.#write(ws, { jsonrpc: "2.0", id: this.#nextId++, method: HUB_METHODS.HEARTBEAT, params: {} });
      this.#unanswered++;
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  // ---- frames -----------------------------------------------------------------------------------

  #write(ws: WebSocket, frame: JsonRpcRequest | JsonRpcResponse, onError?: (err: Error) => void): void {
    if (ws.readyState !== WebSocket.OPEN) {
      onError?.(new Error("hub link is not open"));
      return;
    }
    ws.send(JSON.stringify(frame), (err) => {
      if (err) onError?.(err);
    });
  }

  #request(ws: WebSocket, method: string, params: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      this.#pending.set(id, { method, resolve, reject });
      this.#write(ws, { jsonrpc: "2.0", id, method, params }, (err) => {
        this.#pending.delete(id);
        reject(err);
      });
    });
  }

  #respond(ws: WebSocket, id: JsonRpcId | undefined, result: unknown): void {
    if (id !== undefined) this.#write(ws, { jsonrpc: "2.0", id, result });
  }

  /** Sends a task frame now, or keeps it for the next registration. Resolves once handed to the socket. */
  #sendTaskFrame = (method: string, params: unknown): Promise<void> => {
    const frame = { method, params: params as KeptFrame["params"] };
    if (this.#closed) return Promise.resolve();
    const ws = this.#ws;
    if (!this.#registered || !ws) {
      this.#keep(frame);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const id = this.#nextId++;
      this.#pending.set(id, {
        method,
        resolve: () => {},
        reject: (err) => {
          // Refused by the hub (e.g. the task ended meanwhile): nothing to retry.
          if ((err as { rpc?: unknown }).rpc) this.#settings.logger.debug(`hub refused ${method}: ${err.message}`);
        },
      });
      if (ws.readyState !== WebSocket.OPEN) {
        this.#pending.delete(id);
        this.#keep(frame);
        resolve();
        return;
      }
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }), (err) => {
        if (err) {
          this.#pending.delete(id);
          this.#keep(frame);
        }
        resolve();
      });
    });
  };

  #keep(frame: KeptFrame): void {
    if (this.#closed) return;
    if (this.#kept.length >= this.#settings.maxBufferedFrames) {
      this.#kept.shift();
      if (!this.#droppedWarned) {
        this.#settings.logger.warn(`more than ${this.#settings.maxBufferedFrames} frames kept while disconnected; dropping the oldest`);
        this.#droppedWarned = true;
      }
    }
    this.#kept.push(frame);
  }

  #flushKept(): void {
    const kept = this.#kept;
    this.#kept = [];
    this.#droppedWarned = false;
    if (kept.length > 0) this.#settings.logger.info(`sending ${kept.length} frame(s) kept while disconnected`);
    for (const frame of kept) void this.#sendTaskFrame(frame.method, frame.params);
  }

  #onFrame(ws: WebSocket, data: string): void {
    if (ws !== this.#ws) return;
    const frame = parseFrame(data);
    if (!frame) {
      this.#settings.logger.debug("ignored a frame that is not a JSON-RPC object");
      return;
    }
    if (!isRequest(frame)) {
      const pending = frame.id === null ? undefined : this.#pending.get(frame.id);
      if (!pending) return;
      this.#pending.delete(frame.id!);
      if (frame.error) {
        pending.reject(Object.assign(new Error(frame.error.message), { rpc: frame.error }));
      } else pending.resolve(frame.result);
      return;
    }
    const params = (frame.params ?? {}) as Record<string, unknown>;
    switch (frame.method) {
      case HUB_METHODS.CONNECTION_ESTABLISHED:
        if (typeof params.connection_id === "string") this.#connectionId = params.connection_id;
        return;
      case HUB_METHODS.HEARTBEAT_ACK:
        return;
      case HUB_METHODS.HEARTBEAT:
        this.#respond(ws, frame.id, { ok: true });
        return;
      case HUB_METHODS.TASK_EXECUTE:
        this.#execute(ws, frame.id, params as unknown as ExecuteParams);
        return;
      case HUB_METHODS.TASK_CANCEL:
        this.#cancel(String(params.task_id ?? ""));
        this.#respond(ws, frame.id, { ok: true });
        return;
      default:
        if (frame.id !== undefined) {
          this.#write(ws, {
            jsonrpc: "2.0",
            id: frame.id,
            error: { code: RPC_ERROR_CODES.METHOD_NOT_FOUND, message: `Method not found: ${frame.method}` },
          });
        }
    }
  }

  // ---- tasks ------------------------------------------------------------------------------------

  #execute(ws: WebSocket, rpcId: JsonRpcId | undefined, params: ExecuteParams): void {
    if (typeof params.id !== "string" || params.id === "") {
      if (rpcId !== undefined) {
        this.#write(ws, {
          jsonrpc: "2.0",
          id: rpcId,
          error: { code: RPC_ERROR_CODES.INVALID_PARAMS, message: "Invalid params: id must be a string", data: { field: "id" } },
        });
      }
      return;
    }
    this.#respond(ws, rpcId, { accepted: true });
    const taskId = params.id;
    const metadata = (params.metadata ?? {}) as Record<string, unknown>;
    const message: Message = params.message ?? { role: "user", parts: [] };
    const requested = typeof metadata.skill === "string" && metadata.skill !== "" ? metadata.skill : undefined;
    const entry = requested
      ? (this.#skills.get(requested) ?? [...this.#skills.values()].find((s) => s.definition.id === requested))
      : this.#skills.values().next().value;
    const controller = new AbortController();
    this.#tasks.get(taskId)?.abort(new Error("superseded by a new turn"));
    this.#tasks.set(taskId, controller);
    const { signal } = controller;
    const send = this.#sendTaskFrame;
    const ctx: TaskContext = {
      taskId,
      sessionId: typeof params.sessionId === "string" ? params.sessionId : "",
      skill: entry?.definition.name ?? requested ?? "",
      metadata,
      message,
      signal,
      artifact: (artifact: ArtifactInput) => (signal.aborted ? Promise.resolve() : send(HUB_METHODS.TASK_ARTIFACT, artifactFrame(taskId, artifact))),
      status: (text: string) => (signal.aborted ? Promise.resolve() : send(HUB_METHODS.TASK_STATUS, statusFrame(taskId, text, true))),
    };
    const handler: SkillHandler = entry
      ? entry.handler
      : () => {
          const known = [...this.#skills.keys()].join(", ") || "none";
          throw new Error(
            requested
              ? `unknown skill "${requested}"; agent "${this.#settings.name}" has: ${known}`
              : `agent "${this.#settings.name}" has no skills`,
          );
        };
    this.#events.emit("task", { taskId, sessionId: ctx.sessionId, skill: ctx.skill });
    void this.#queue
      .add(async () => {
        if (!signal.aborted) await runTask(handler, textOf(message), ctx, send);
      })
      .catch((err: unknown) => this.#settings.logger.error(`task ${taskId}: ${messageOf(err)}`))
      .finally(() => {
        if (this.#tasks.get(taskId) === controller) this.#tasks.delete(taskId);
      });
  }

  #cancel(taskId: string): void {
    const controller = this.#tasks.get(taskId);
    if (!controller) return;
    // The client canceled, the task timed out, or the router is shutting down: the task is over either way.
    controller.abort(new Error("task canceled by the router"));
    this.#kept = this.#kept.filter((frame) => frame.params.task_id !== taskId);
  }

  // ---- ending -----------------------------------------------------------------------------------

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
    void this.#closeSocket();
  }

  #stop(reason: Error): void {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#stopHeartbeat();
    this.#queue.clear();
    for (const controller of this.#tasks.values()) controller.abort(reason);
    this.#tasks.clear();
    this.#kept = [];
  }

  #closeSocket(): Promise<void> {
    const ws = this.#ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) {
      this.#ws = undefined;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const cut = setTimeout(() => ws.terminate(), DEFAULTS.closeTimeoutMs);
      cut.unref();
      ws.once("close", () => {
        clearTimeout(cut);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, "agent closing");
    });
  }
}


/**
 * Connects an agent to the router's hub and keeps it connected. Add skills right away (same tick);
 * `await agent.ready` to know it is registered.
 *
 * @example
 * const agent = connectAgent({ url: "ws://127.0.0.1:8080/hub", name: "poet" });
 * agent.skill({ name: "verse", description: "Writes a verse" }, async function* (text) {
 *   for (const word of text.split(" ")) yield word + " ";
 * });
 * await agent.ready;
 */
export function connectAgent(options: ConnectAgentOptions): Agent {
  return new HubAgent(options);
}
