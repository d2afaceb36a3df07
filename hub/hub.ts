import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocketServer, type RawData, type VerifyClientCallbackAsync, type WebSocket } from "ws";
import type { AgentRegistry } from "../router/agents/registry.js";
import { failure, type RpcId } from "../router/jsonrpc/envelope.js";
import { HubRefusal } from "./wire/errors.js";
import type { SchemaRegistry } from "../router/schema/validator.js";
import { frameBytes, HubConnection, type RateLimit } from "./connection.js";
import { checkParams, isAnswer, readFrame } from "./frames.js";
import { HubAgentConnector } from "./hub-agent-connector.js";
import { Senders } from "./ingest-rate.js";
import { isOwnOrigin, normalizeOrigin, type OriginPolicy } from "../router/net/origin.js";
import { HUB_CLOSE_CODES, HUB_DEFAULTS, HUB_METHODS, HUB_PATHS, type ArtifactParams, type RegisterParams, type StatusParams } from "./protocol.js";
import { Registrations, type HubCluster } from "./registration.js";
import { ackOf, notStored, routeTaskUpdate, TASK_UPDATE_METHODS } from "./task-routing.js";
import type { DurableSink } from "./task-channel.js";

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
  /** A socket that has not registered by then is closed. Default 10000. */
  registerTimeoutMs?: number;
  /** Bytes per second one agent connection may send (`limits.hubBytesPerSecond`); absent or 0: unlimited. */
  bytesPerSecond?: number;
  /**
   * Bytes per second one agent connection may send while another is sending too
   * (`limits.hubSharedBytesPerSecond`); absent or 0: no such limit.
   */
  sharedBytesPerSecond?: number;
  /** An agent's socket rests for going past one of those rates (the router counts them: a metric). */
  onRest?: (limit: RateLimit) => void;
  /** An agent that drops keeps its tasks in flight this long, for its reconnect. Default 2000. */
  resumeGraceMs?: number;
  /** Browser origins that may open the hub besides the router's own (`cors.origins` + `hub.allowedOrigins`). */
  allowedOrigins?: readonly string[];
  /** The router binds a loopback address: only loopback Host names make an Origin "own" (DNS rebinding). */
  loopbackBind?: boolean;
  /** How the router names itself (publicUrl, trustProxy): an Origin naming it so is "own", as on the HTTP edge. */
  originPolicy?: OriginPolicy;
  /** Routers sharing one store (router/cluster): agent names are claimed cluster-wide. */
  cluster?: HubCluster;
  /**
   * The router's failed-authentication limit (`limits.authFailuresPerMinute`), shared with its HTTP edge: a
   * refused hub token counts against the client's address, and a throttled address is refused at the upgrade.
   */
  authLimit?: HubAuthLimit;
}

/** Counts refused tokens per client address (the router's AuthFailureLimiter). */
export interface HubAuthLimit {
  /** The client address of an upgrade request (its peer, or the proxy's last hop with trustProxy). */
  addressOf(req: IncomingMessage): string;
  /** Seconds until the address may try again; 0 when it may try now. */
  retryAfterSeconds(address: string): number;
  fail(address: string): void;
}

/**
 * The WebSocket hub: agents connect, register under a name, receive `task.execute` and push their
 * updates back. Runs on the router's HTTP server (`noServer` + handleUpgrade on /hub and /ws/agents).
 */
export class AgentHub {
  #opts: HubOptions & { registerTimeoutMs: number; resumeGraceMs: number };
  #wss: WebSocketServer;
  #registrations: Registrations;
  #connections = new Set<HubConnection>();
  /** Who is sending: the shared rate applies to a connection only while another one sends too. */
  #senders = new Senders();
  #origins: ReadonlySet<string>;

  constructor(options: HubOptions) {
    this.#opts = {
      ...options,
      registerTimeoutMs: options.registerTimeoutMs ?? HUB_DEFAULTS.registerTimeoutMs,
      resumeGraceMs: options.resumeGraceMs ?? HUB_DEFAULTS.resumeGraceMs,
    };
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: HUB_DEFAULTS.maxPayload, verifyClient: this.#verify });
    this.#registrations = new Registrations(options);
    this.#origins = new Set((options.allowedOrigins ?? []).map((o) => normalizeOrigin(o) ?? o));
  }

  /** Registered agents currently connected. */
  onlineCount(): number {
    let n = 0;
    for (const c of this.#connections) if (c.agent) n++;
    return n;
  }

  /** Agent sockets not being read until the store has caught up with their updates (flow control). */
  pausedCount(): number {
    let n = 0;
    for (const c of this.#connections) if (c.paused) n++;
    return n;
  }

  /** Takes the upgrade if the path is the hub's; returns false to let others handle it. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? "/", "http://hub");
    if (!HUB_PATHS.includes(url.pathname)) return false;
    const bearer = req.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
    const token = bearer ?? url.searchParams.get("token") ?? undefined;
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, token, this.#opts.authLimit?.addressOf(req)));
    return true;
  }

  /**
   * ws's own handshake hook: an upgrade from a foreign browser page (CONTRACT 12), or from an address past the
   * failed-authentication limit, is answered with its HTTP status (ws writes it and closes the socket).
   */
  readonly #verify: VerifyClientCallbackAsync = ({ req }, done) => {
    if (!this.#originAllowed(req)) {
      this.#opts.logger.warn({ origin: req.headers.origin }, "hub upgrade refused: origin not allowed");
      return done(false, 403, refusalBody("origin not allowed"), JSON_BODY);
    }
    const address = this.#opts.authLimit?.addressOf(req);
    const wait = address === undefined ? 0 : this.#opts.authLimit!.retryAfterSeconds(address);
    if (wait > 0) return done(false, 429, refusalBody("too many failed authentications; try again later"), { ...JSON_BODY, "Retry-After": String(wait) });
    done(true);
  };

  /**
   * Whether an upgrade may proceed given its `Origin` header (CONTRACT 12): agents (SDK, scripts) send none;
   * a browser page may connect only from the router's own origin (as the HTTP edge reads it: publicUrl, the
   * forwarded host with trustProxy, or a Host that is loopback on a loopback bind) or a listed one, so a page
   * elsewhere cannot register agents or take the router's tasks through a visitor's browser.
   */
  #originAllowed(req: IncomingMessage): boolean {
    const header = req.headers.origin;
    if (header === undefined) return true;
    const origin = normalizeOrigin(header);
    if (!origin) return false;
    return this.#origins.has(origin) || isOwnOrigin(req, origin, this.#opts.originPolicy ?? { trustProxy: false }, this.#opts.loopbackBind ?? false);
  }

  /**
   * Cuts every agent connection (close code 1012, service restart): they reconnect and register again. Used
   * when this instance lost its cluster lease, and with it every agent name it held.
   */
  disconnectAll(reason: string): void {
    for (const c of this.#connections) void c.close(HUB_CLOSE_CODES.SERVICE_RESTART, reason.slice(0, 120));
  }

  /** Says goodbye to every agent (close code 1001, going away), then cuts whoever does not answer. */
  async close(): Promise<void> {
    await Promise.all([...this.#connections].map((c) => c.close(HUB_CLOSE_CODES.GOING_AWAY, "router shutting down")));
    for (const agent of this.#opts.registry.list()) if (agent instanceof HubAgentConnector) agent.dispose();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(ws: WebSocket, token: string | undefined, address: string | undefined): void {
    const { timeoutMs, registerTimeoutMs, bytesPerSecond, sharedBytesPerSecond, logger } = this.#opts;
    const conn = new HubConnection(
      ws,
      token,
      { timeoutMs, registerTimeoutMs, bytesPerSecond, sharedBytesPerSecond, senders: this.#senders },
      {
        frame: (c, data, isBinary) => this.#onFrame(c, data, isBinary),
        dropped: (c, why, agentLeft) => this.#drop(c, why, agentLeft),
        rested: (_c, limit) => this.#opts.onRest?.(limit),
      },
      logger,
      address,
    );
    this.#connections.add(conn);
    conn.start();
    conn.send({ jsonrpc: "2.0", method: HUB_METHODS.CONNECTION_ESTABLISHED, params: { connection_id: conn.id } });
  }

  #drop(conn: HubConnection, why: string, agentLeft: boolean): void {
    if (!this.#connections.delete(conn)) return;
    const agent = conn.agent;
    if (!agent) return;
    // An agent that said goodbye is not coming back for its tasks; a lost link may be back within the grace.
    const grace = agentLeft ? 0 : this.#opts.resumeGraceMs;
    this.#opts.logger.info({ agent: agent.info.id, inFlight: agent.inFlight, why, graceMs: grace }, "hub agent dropped");
    agent.detach(`Agent ${agent.info.id} disconnected while the task was in flight: ${why}.`, grace);
    this.#registrations.left(agent, conn.id);
  }

  #onFrame(conn: HubConnection, data: RawData, isBinary: boolean): void {
    const frame = readFrame(data, isBinary);
    if (frame instanceof HubRefusal) {
      conn.send(failure(null, frame.toJSON()));
      return;
    }
    const id = frame.id ?? null;
    const hasId = frame.id !== undefined;
    if (isAnswer(frame)) {
      if (conn.agent && typeof frame.id === "string")
        conn.agent.answered(frame.id, frame.error as { message?: unknown } | undefined, frame.result, this.#answerIssue(frame.result));
      return;
    }
    if (typeof frame.method !== "string") {
      if (hasId) conn.send(failure(id, HubRefusal.invalidRequest("method must be a string", "method").toJSON()));
      return;
    }
    if (TASK_UPDATE_METHODS.has(frame.method)) return this.#onTaskUpdate(conn, frame.method, frame.params ?? {}, frameBytes(data), hasId, id);
    let result: unknown;
    try {
      result = this.#handle(conn, frame.method, frame.params ?? {});
    } catch (err) {
      result = Promise.reject(err);
    }
    if (result instanceof Promise) {
      const method = frame.method;
      result.catch((err: unknown) => this.#refused(conn, method, err));
    }
    if (hasId) conn.answer(id, frame.method, result);
  }

  /**
   * A task update: held against the connection's flow control until it is stored (or refused), and answered
   * when sent as a request. The busiest path of the hub: an update sent as a notification is told back to the
   * connection's one sink, with no promise or closure of its own.
   */
  #onTaskUpdate(conn: HubConnection, method: string, params: unknown, bytes: number, hasId: boolean, id: RpcId | null): void {
    const sink = this.#sinkOf(conn);
    let answer: Promise<boolean> | undefined;
    let told: DurableSink = sink;
    if (hasId) {
      let resolve!: (durable: boolean) => void;
      answer = new Promise<boolean>((r) => (resolve = r));
      told = {
        settled(durable, b, taskId) {
          sink.settled(durable, b, taskId);
          resolve(durable);
        },
      };
    }
    conn.hold(bytes);
    try {
      checkParams(this.#opts.schemas, method, params);
      routeTaskUpdate(conn.agent, method, params as StatusParams | ArtifactParams, told, bytes);
    } catch (err) {
      conn.release(bytes);
      this.#refused(conn, method, err);
      if (hasId) conn.answer(id, method, Promise.reject(err));
      return;
    }
    if (answer) conn.answer(id, method, ackOf(answer, (params as StatusParams).task_id));
  }

  readonly #sinks = new WeakMap<HubConnection, DurableSink>();

  /** The connection's sink for its updates: releases their bytes, logs those not stored. */
  #sinkOf(conn: HubConnection): DurableSink {
    let sink = this.#sinks.get(conn);
    if (!sink) {
      sink = {
        settled: (durable, bytes, taskId) => {
          conn.release(bytes);
          if (!durable) this.#refused(conn, "task update", notStored(taskId));
        },
      };
      this.#sinks.set(conn, sink);
    }
    return sink;
  }

  /** Why an answer's bare message (protocol 2's `{message}`) is not a hub message, if it carries one. */
  #answerIssue(result: unknown): string | undefined {
    const message = (result as { message?: unknown } | null | undefined)?.message;
    if (message === undefined || typeof result !== "object") return undefined;
    return this.#opts.schemas.check("hub#/$defs/Message", message, "message")?.message;
  }

  /** Logs a refused frame at debug level: a misbehaving agent must not be able to flood the log. */
  #refused(conn: HubConnection, method: string, err: unknown): void {
    this.#opts.logger.debug({ agent: conn.agent?.info.id, method, error: (err as Error).message }, "hub frame refused");
  }

  #handle(conn: HubConnection, method: string, params: unknown): unknown {
    checkParams(this.#opts.schemas, method, params);
    switch (method) {
      case HUB_METHODS.REGISTER:
        return this.#register(conn, params as RegisterParams);
      case HUB_METHODS.HEARTBEAT:
        conn.send({ jsonrpc: "2.0", method: HUB_METHODS.HEARTBEAT_ACK, params: {} });
        return { ok: true };
      default:
        throw HubRefusal.methodNotFound(method);
    }
  }

  /** Answers once the name is ours (in a cluster: once it is claimed cluster-wide). */
  async #register(conn: HubConnection, p: RegisterParams): Promise<unknown> {
    if (conn.agent) throw HubRefusal.invalidRequest(`this connection is already registered as ${conn.agent.info.id}`);
    const link = { send: (frame: object) => conn.send(frame) };
    const agent = await this.#registrations
      .register(p, conn.token, link, conn.id, () => this.#connections.has(conn))
      .catch((err: unknown) => {
        // A refused token is a failed authentication, as a wrong API key is on the HTTP edge.
        const field = err instanceof HubRefusal ? (err.data as { field?: string } | undefined)?.field : undefined;
        if (field === "auth_token" && conn.address !== undefined) this.#opts.authLimit?.fail(conn.address);
        throw err;
      });
    conn.registered(agent);
    this.#opts.logger.info({ agent: agent.info.id, connection: conn.id }, "hub agent registered");
    return { registered: true, agent_id: agent.info.id, ...(agent.protocol !== 1 && { protocol: agent.protocol }) };
  }
}

/** A refused upgrade's body is JSON, as the HTTP edge's refusals are. */
const JSON_BODY = { "Content-Type": "application/json" } as const;

function refusalBody(reason: string): string {
  return JSON.stringify({ error: reason });
}
