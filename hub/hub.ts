import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import type { AgentInfo } from "../router/core/agent.js";
import { isTerminal, type TaskState } from "../router/core/model.js";
import type { AgentRegistry } from "../router/agents/registry.js";
import { failure, success, type RpcId } from "../router/rpc/envelope.js";
import { RpcError, toRpcError } from "../router/rpc/errors.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../router/schema/depth.js";
import type { SchemaRegistry } from "../router/schema/validator.js";
import { HubAgent } from "./hub-agent.js";
import { HUB_DEFAULTS, HUB_METHODS, HUB_PATHS, HUB_SCHEMAS, type ArtifactParams, type RegisterParams, type StatusParams } from "./protocol.js";
import { artifactUpdate, hasText, statusUpdate } from "./translate.js";

export interface HubOptions {
  registry: AgentRegistry;
  schemas: SchemaRegistry;
  logger: Logger;
  /** token -> agent name(s) it may register. */
  tokens: Record<string, string | string[]>;
  /** Agents may register without a token (names owned by a token still need theirs). */
  allowAnonymous: boolean;
  /** No frame for this long and the agent is dropped. */
  timeoutMs: number;
}

interface Connection {
  id: string;
  ws: WebSocket;
  token: string | undefined;
  agent?: HubAgent;
  timer?: NodeJS.Timeout;
  pinger?: NodeJS.Timeout;
  /** Close code implied by a protocol error ws reported before closing. */
  error?: number;
}

/**
 * The WebSocket hub: agents connect, register under a name, receive `task.execute` and push their
 * updates back. Runs on the router's HTTP server (`noServer` + handleUpgrade on /hub and /ws/agents).
 */
export class AgentHub {
  #opts: HubOptions;
  #wss: WebSocketServer;
  #owners = new Map<string, string[]>();
  #connections = new Set<Connection>();
  #offline = new Map<string, HubAgent>();

  constructor(options: HubOptions) {
    this.#opts = options;
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: HUB_DEFAULTS.maxPayload });
    for (const [token, names] of Object.entries(options.tokens)) {
      for (const name of Array.isArray(names) ? names : [names]) {
        this.#owners.set(name, [...(this.#owners.get(name) ?? []), token]);
        // Known by configuration: listed offline until it connects, so clients get "agent unavailable".
        if (!options.registry.find(name)) options.registry.set(new HubAgent(placeholderInfo(name)));
      }
    }
  }

  /** Registered agents currently connected. */
  onlineCount(): number {
    let n = 0;
    for (const c of this.#connections) if (c.agent) n++;
    return n;
  }

  /** Takes the upgrade if the path is the hub's; returns false to let others handle it. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? "/", "http://hub");
    if (!HUB_PATHS.includes(url.pathname)) return false;
    const bearer = req.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
    const token = bearer ?? url.searchParams.get("token") ?? undefined;
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, token));
    return true;
  }

  /** Says goodbye to every agent (close code 1001, going away), then cuts whoever does not answer. */
  async close(): Promise<void> {
    const closing = [...this.#connections].map(
      (c) =>
        new Promise<void>((resolve) => {
          const cut = setTimeout(() => c.ws.terminate(), HUB_DEFAULTS.closeGraceMs);
          c.ws.once("close", () => {
            clearTimeout(cut);
            resolve();
          });
          c.ws.close(1001, "router shutting down");
        }),
    );
    await Promise.all(closing);
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(ws: WebSocket, token: string | undefined): void {
    const conn: Connection = { id: randomUUID(), ws, token };
    this.#connections.add(conn);
    this.#alive(conn);
    const pingEvery = Math.min(HUB_DEFAULTS.maxPingIntervalMs, Math.max(10, Math.floor(this.#opts.timeoutMs / 3)));
    conn.pinger = setInterval(() => ws.ping(), pingEvery);
    conn.pinger.unref();
    ws.on("pong", () => this.#alive(conn));
    ws.on("message", (data, isBinary) => {
      this.#alive(conn);
      this.#onFrame(conn, data, isBinary);
    });
    ws.on("close", (code, reason) => this.#drop(conn, closeReason(conn.error ?? code, reason.toString())));
    ws.on("error", (err: Error & { code?: string }) => {
      // ws stops reading after a protocol error and the close then reports 1006: keep the real cause.
      if (err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") conn.error = 1009;
      this.#opts.logger.warn({ err, connection: conn.id }, "hub connection error");
    });
    this.#send(conn, { jsonrpc: "2.0", method: HUB_METHODS.CONNECTION_ESTABLISHED, params: { connection_id: conn.id } });
  }

  #alive(conn: Connection): void {
    if (conn.timer) conn.timer.refresh();
    else {
      conn.timer = setTimeout(() => {
        this.#opts.logger.warn({ connection: conn.id, agent: conn.agent?.info.id }, "hub agent timed out");
        conn.ws.terminate();
        this.#drop(conn, `it sent nothing for ${this.#opts.timeoutMs} ms`);
      }, this.#opts.timeoutMs);
      conn.timer.unref();
    }
  }

  #drop(conn: Connection, why: string): void {
    if (!this.#connections.delete(conn)) return;
    clearTimeout(conn.timer);
    clearInterval(conn.pinger);
    const agent = conn.agent;
    if (agent) {
      this.#opts.logger.info({ agent: agent.info.id, inFlight: agent.inFlight, why }, "hub agent dropped");
      agent.detach(`Agent ${agent.info.id} disconnected while the task was in flight: ${why}.`);
      if (!this.#owners.has(agent.info.id)) this.#rememberOffline(agent);
    }
  }

  /**
   * Anonymous agents that left stay listed (offline, so clients get "agent unavailable") up to a bound;
   * beyond it the longest-gone are forgotten, so agents with per-instance names cannot grow the registry.
   */
  #rememberOffline(agent: HubAgent): void {
    this.#offline.delete(agent.info.id);
    this.#offline.set(agent.info.id, agent);
    for (const [id, old] of this.#offline) {
      if (this.#offline.size <= HUB_DEFAULTS.maxOfflineAnonymous) break;
      this.#offline.delete(id);
      if (!old.isOnline() && this.#opts.registry.find(id) === old) this.#opts.registry.delete(id);
    }
  }

  #send(conn: Connection, frame: object): void {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(frame));
  }

  #onFrame(conn: Connection, data: RawData, isBinary: boolean): void {
    let frame: { id?: RpcId; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    try {
      if (isBinary) throw new Error("binary frames are not part of the hub protocol");
      try {
        frame = JSON.parse(data.toString());
      } catch {
        // JSON.parse's own text names JavaScript internals; the agent only needs to know the frame is not JSON.
        throw new Error("the frame is not valid JSON");
      }
      if (!frame || typeof frame !== "object" || Array.isArray(frame)) throw new Error("a frame must be one JSON object");
      if (exceedsDepth(frame)) throw new Error(`a frame may not nest deeper than ${MAX_JSON_DEPTH} levels`);
    } catch (err) {
      this.#send(conn, failure(null, RpcError.parse((err as Error).message).toJSON()));
      return;
    }
    const id = frame.id ?? null;
    const hasId = frame.id !== undefined;
    if (typeof frame.method !== "string") {
      if ("result" in frame || "error" in frame) {
        // An agent's answer to task.execute / task.cancel.
        if (conn.agent && typeof frame.id === "string") conn.agent.answered(frame.id, frame.error as { message?: unknown } | undefined);
        return;
      }
      if (hasId) this.#send(conn, failure(id, RpcError.invalidRequest("method must be a string", "method").toJSON()));
      return;
    }
    try {
      const result = this.#handle(conn, frame.method, frame.params ?? {});
      if (hasId && result !== undefined) this.#send(conn, success(id, result));
    } catch (err) {
      // A bug's text (a stack, "x is not a function") is not the agent's business: toRpcError makes it generic.
      const e = toRpcError(err);
      // The agent is told; at debug level so a misbehaving agent cannot flood the log.
      this.#opts.logger.debug({ agent: conn.agent?.info.id, method: frame.method, error: e.message, err }, "hub frame refused");
      this.#send(conn, failure(id, e.toJSON()));
    }
  }

  #handle(conn: Connection, method: string, params: unknown): unknown {
    const schema = HUB_SCHEMAS[method];
    if (schema) {
      const issue = this.#opts.schemas.check(schema, params);
      if (issue) throw RpcError.invalidParams(issue.message, issue.field);
    }
    switch (method) {
      case HUB_METHODS.REGISTER:
        return this.#register(conn, params as RegisterParams);
      case HUB_METHODS.HEARTBEAT:
        this.#send(conn, { jsonrpc: "2.0", method: HUB_METHODS.HEARTBEAT_ACK, params: {} });
        return { ok: true };
      case HUB_METHODS.TASK_STATUS: {
        const p = params as StatusParams;
        const { agent, channel } = this.#owned(conn, p.task_id);
        if (hasText(p.status.message)) channel.sawText = true;
        const final = p.final === true || isTerminal(p.status.state as TaskState);
        channel.queue.push(statusUpdate(p, final));
        if (final) agent.release(p.task_id);
        return { ok: true };
      }
      case HUB_METHODS.TASK_ARTIFACT: {
        const p = params as ArtifactParams;
        const { channel } = this.#owned(conn, p.task_id);
        channel.queue.push(artifactUpdate(p));
        return { ok: true };
      }
      case HUB_METHODS.TASK_COMPLETE: {
        const p = params as StatusParams;
        const { agent, channel } = this.#owned(conn, p.task_id);
        // A non-streaming agent's only message is shown first as a working status (the seed's two-event rule).
        if (!channel.sawText && hasText(p.status.message)) {
          channel.queue.push(statusUpdate({ task_id: p.task_id, status: { state: "working", message: p.status.message } }, false));
        }
        channel.queue.push(statusUpdate(p, true));
        agent.release(p.task_id);
        return { ok: true };
      }
      default:
        throw RpcError.methodNotFound(method);
    }
  }

  #owned(conn: Connection, taskId: string) {
    const agent = conn.agent;
    if (!agent) throw RpcError.invalidRequest("register with agent.register before sending task updates");
    const channel = agent.channel(taskId);
    if (!channel) throw RpcError.invalidParams(`task ${taskId} is not assigned to agent ${agent.info.id}`, "task_id", { taskId });
    return { agent, channel };
  }

  #register(conn: Connection, p: RegisterParams): unknown {
    const name = p.agent_name;
    if (conn.agent) throw RpcError.invalidRequest(`this connection is already registered as ${conn.agent.info.id}`);
    const token = p.auth_token ?? conn.token;
    const owners = this.#owners.get(name);
    if (token !== undefined) {
      const allowed = this.#opts.tokens[token];
      if (allowed === undefined) throw RpcError.invalidParams("invalid token", "auth_token");
      const names = Array.isArray(allowed) ? allowed : [allowed];
      if (!names.includes(name)) throw RpcError.invalidParams(`token may not register agent "${name}"`, "agent_name");
    } else if (owners) {
      throw RpcError.invalidParams(`agent name "${name}" is owned by another token; send its token`, "auth_token");
    } else if (!this.#opts.allowAnonymous) {
      throw RpcError.invalidParams("a token is required to register (configure hub.tokens)", "auth_token");
    }
    const existing = this.#opts.registry.find(name);
    if (existing && !(existing instanceof HubAgent)) {
      throw RpcError.invalidParams(`agent name "${name}" is taken by a ${existing.info.transport} agent`, "agent_name");
    }
    if (existing?.isOnline()) throw RpcError.invalidParams(`agent "${name}" is already connected`, "agent_name");
    const agent = (existing as HubAgent | undefined) ?? new HubAgent(placeholderInfo(name));
    agent.attach({ send: (frame) => this.#send(conn, frame) }, infoFrom(p), token);
    conn.agent = agent;
    this.#offline.delete(name);
    this.#opts.registry.set(agent);
    this.#opts.logger.info({ agent: name, connection: conn.id }, "hub agent registered");
    return { registered: true, agent_id: name };
  }
}

/** Why a connection closed, in words (1009: a frame over the hub's size limit). */
function closeReason(code: number, reason: string): string {
  if (code === 1009) return `it sent a frame larger than ${HUB_DEFAULTS.maxPayload} bytes`;
  if (reason) return `it closed the connection: ${reason}`;
  return code === 1000 || code === 1001 || code === 1005 ? "it closed the connection" : `the connection was lost (code ${code})`;
}

function placeholderInfo(name: string): AgentInfo {
  return { id: name, name, description: `WebSocket agent ${name}`, transport: "ws", skills: [], streaming: true };
}

function infoFrom(p: RegisterParams): AgentInfo {
  const card = p.card ?? {};
  const cardSkills = Array.isArray(card.skills) ? (card.skills as RegisterParams["skills"]) : undefined;
  const skills = (p.skills ?? cardSkills ?? []).map((s) => ({
    id: s.id ?? s.name,
    name: s.name,
    description: s.description ?? "",
    ...(s.tags && { tags: s.tags }),
    ...(s.examples && { examples: s.examples }),
  }));
  const capabilities = card.capabilities as { streaming?: boolean } | undefined;
  return {
    id: p.agent_name,
    name: p.agent_name,
    description: p.description ?? (typeof card.description === "string" ? card.description : `WebSocket agent ${p.agent_name}`),
    transport: "ws",
    skills,
    streaming: p.streaming ?? capabilities?.streaming ?? true,
    ...(typeof card.version === "string" && { version: card.version }),
    ...(p.card && { card: p.card }),
  };
}
