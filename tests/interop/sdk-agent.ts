import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TaskState, type AgentCard, type Message, type Task } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { randomUUID } from "node:crypto";
import { sdkText, textPart } from "./helpers.js";
import { SdkGrpcServer } from "./sdk-grpc-server.js";

/**
 * An upstream A2A agent built only from @a2a-js/sdk's server pieces (DefaultRequestHandler, its express
 * JSON-RPC or REST and agent-card handlers, an AgentExecutor that streams), on a loopback port.
 *
 * What it does depends on the message text: "ask" ends the turn input-required, and the follow-up on the
 * same task completes with "you said: <text>"; "hang" works until canceled; "explode" throws in the
 * executor (the SDK answers with an error); a text starting "reply" is answered with a bare Message
 * "replied to: <text>" (no task); anything else streams "working on: <text>", the upper-cased
 * text as two artifact chunks, and completes with "done".
 */
export interface SdkAgentOptions {
  streaming: boolean;
  /** Also speak v0.3 (the SDK's legacy JSON-RPC handler and card). */
  legacyCompat?: boolean;
  /**
   * Ignore the context a message names, so the SDK makes its own: then both of the agent's ids (task and
   * context) differ from the router's, as with any agent that keeps its own conversations.
   */
  ownContext?: boolean;
  /**
   * "HTTP+JSON": serve the v1.0 REST binding (the SDK's restHandler) instead of JSON-RPC, and list only
   * that interface on the card. "GRPC": serve the v1.0 gRPC binding (the SDK's grpcService, on a port of
   * its own, `grpcTarget`) and list only that interface; the card is still served over HTTP at `url`.
   */
  binding?: "JSONRPC" | "HTTP+JSON" | "GRPC";
  /** The `tenant` the card's interface names. */
  tenant?: string;
}

/** The SDK's REST paths as the v1.0 method they stand for, so tests wait on calls alike in both bindings. */
const REST_METHODS: Array<[RegExp, string]> = [
  [/^\/message:send$/, "SendMessage"],
  [/^\/message:stream$/, "SendStreamingMessage"],
  [/^\/tasks\/([^/]+):cancel$/, "CancelTask"],
];

export interface RecordedCall {
  method: string;
  version: string | undefined;
  params: Record<string, any>;
  /** The request's content type (recorded for REST calls). */
  contentType?: string;
  /** The call's gRPC metadata (recorded for gRPC calls). */
  metadata?: Record<string, string>;
}

export class SdkAgent {
  readonly calls: RecordedCall[] = [];
  #callWaiters: Array<{ method: string; resolve: (c: RecordedCall) => void }> = [];
  readonly canceled: string[] = [];
  /** The ids the SDK gave every task it ran (one entry per turn). */
  readonly tasks: Array<{ taskId: string; contextId: string }> = [];
  url = "";
  #server?: Server;
  #grpc?: SdkGrpcServer;
  #hanging = new Map<string, () => void>();

  constructor(readonly opts: SdkAgentOptions) {}

  /** The first call of `method` (already received or the next one). */
  call(method: string): Promise<RecordedCall> {
    const seen = this.calls.find((c) => c.method === method);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#callWaiters.push({ method, resolve }));
  }

  get rest(): boolean {
    return this.opts.binding === "HTTP+JSON";
  }

  /** The gRPC server's `host:port` (binding "GRPC"). */
  get grpcTarget(): string {
    return this.#grpc?.target ?? "";
  }

  card(): AgentCard {
    const iface = (protocolVersion: string) => ({ url: `${this.url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion });
    const restIface = { url: `${this.url}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" };
    const grpcIface = { url: this.grpcTarget, protocolBinding: "GRPC", tenant: this.opts.tenant ?? "", protocolVersion: "1.0" };
    const httpIfaces = this.rest ? [restIface] : [iface("1.0"), ...(this.opts.legacyCompat ? [iface("0.3")] : [])];
    return {
      name: "SDK shouter",
      description: "An @a2a-js/sdk agent that upper-cases",
      supportedInterfaces: this.opts.binding === "GRPC" ? [grpcIface] : httpIfaces,
      provider: undefined,
      version: "1.2.3",
      capabilities: { streaming: this.opts.streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [
        {
          id: "shout",
          name: "Shout",
          description: "Upper-cases",
          tags: ["test"],
          examples: ["hello"],
          inputModes: [],
          outputModes: [],
          securityRequirements: [],
        },
      ],
      signatures: [],
    };
  }

  /** A fresh request handler and task store, as after a restart: the agent no longer knows its tasks. */
  #newHandler(): DefaultRequestHandler {
    return new DefaultRequestHandler(this.card(), new InMemoryTaskStore(), this.#executor());
  }

  /** The REST binding over the current handler (replaced by forget()). */
  #restRouter?: ReturnType<typeof restHandler>;

  /** Forgets every task, as an agent that restarted: a follow-up naming one gets the SDK's TaskNotFound. */
  forget(): void {
    const handler = this.#newHandler();
    this.#restRouter = restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication });
    this.#grpc?.use(handler);
  }

  async start(): Promise<this> {
    const handler = this.#newHandler();
    const legacyCompat = { enabled: this.opts.legacyCompat === true };
    const app = express();
    app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => this.card(), legacyCompat }));
    const record = (call: RecordedCall) => {
      this.calls.push(call);
      for (const w of this.#callWaiters.filter((w) => w.method === call.method)) {
        this.#callWaiters.splice(this.#callWaiters.indexOf(w), 1);
        w.resolve(call);
      }
    };
    if (this.opts.binding === "GRPC") {
      this.#grpc = await new SdkGrpcServer(handler, (call, request) => {
        if (this.opts.ownContext && request.message) request.message.contextId = "";
        record(call);
      }).start();
    } else if (this.rest) {
      app.use(
        "/a2a/rest",
        express.json({ type: ["application/json", "application/a2a+json"] }),
        (req, _res, next) => {
          if (this.opts.ownContext && req.body?.message) delete req.body.message.contextId;
          const hit = REST_METHODS.map(([re, method]) => [re.exec(req.path), method] as const).find(([m]) => m);
          if (hit) {
            const [m, method] = hit;
            const params = method === "CancelTask" ? { id: decodeURIComponent(m![1]!) } : (req.body ?? {});
            record({ method, version: req.get("a2a-version"), params, contentType: req.get("content-type") });
          }
          next();
        },
        (req, res, next) => this.#restRouter!(req, res, next),
      );
      this.#restRouter = restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication });
    } else {
      app.use(
        "/a2a/jsonrpc",
        express.json(),
        (req, _res, next) => {
          if (this.opts.ownContext && req.body?.params?.message) delete req.body.params.message.contextId;
          record({ method: req.body?.method, version: req.get("a2a-version"), params: req.body?.params ?? {} });
          next();
        },
        jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }),
      );
    }
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const release of this.#hanging.values()) release();
    this.#grpc?.stop();
    this.#server?.closeAllConnections();
    await new Promise((r) => this.#server?.close(r));
  }

  #executor(): AgentExecutor {
    return {
      execute: async (ctx: RequestContext, bus: ExecutionEventBus) => {
        const text = sdkText(ctx.userMessage.parts);
        const { taskId, contextId } = ctx;
        this.tasks.push({ taskId, contextId });
        if (text === "explode") throw new Error("the shouter blew a fuse");
        if (text.startsWith("reply")) {
          // A bare Message and no task, naming the agent's own ids as the SDK's agents do.
          bus.publish(AgentEvent.message(agentMessage(`replied to: ${text}`, taskId, contextId)));
          bus.finished();
          return;
        }
        const status = (state: TaskState, say?: string) =>
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: { state, message: say === undefined ? undefined : agentMessage(say, taskId, contextId), timestamp: new Date().toISOString() },
            metadata: undefined,
          });
        // Every turn opens with the Task (the SDK enforces it), a follow-up's with the task as it stands.
        bus.publish(AgentEvent.task(ctx.task ?? newTask(taskId, contextId, ctx.userMessage)));
        if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
          bus.publish(status(TaskState.TASK_STATE_COMPLETED, `you said: ${text}`));
          bus.finished();
          return;
        }
        bus.publish(status(TaskState.TASK_STATE_WORKING, `working on: ${text}`));
        if (text === "ask") {
          bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, "which one?"));
          bus.finished();
          return;
        }
        if (text === "hang") {
          await new Promise<void>((release) => this.#hanging.set(taskId, release));
          return; // cancelTask published the canceled status
        }
        const upper = text.toUpperCase();
        const half = Math.ceil(upper.length / 2);
        const chunk = (part: string, append: boolean, lastChunk: boolean) =>
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: "shout", name: "shout", description: "", parts: [textPart(part)], metadata: undefined, extensions: [] },
            append,
            lastChunk,
            metadata: undefined,
          });
        bus.publish(chunk(upper.slice(0, half), false, false));
        bus.publish(chunk(upper.slice(half), true, true));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, "done"));
        bus.finished();
      },
      cancelTask: async (taskId: string, bus: ExecutionEventBus) => {
        this.canceled.push(taskId);
        const release = this.#hanging.get(taskId);
        this.#hanging.delete(taskId);
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId: "",
            status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
            metadata: undefined,
          }),
        );
        bus.finished();
        release?.();
      },
    };
  }
}

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role: 2, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function newTask(id: string, contextId: string, first: Message): Task {
  return {
    id,
    contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [first],
    metadata: undefined,
  };
}
