/**
 * The request-hop baseline: @a2a-js/sdk's own DefaultRequestHandler (in-memory task store) and its express
 * JSON-RPC handler, with v0.3 compatibility so `message/send` and `message/stream` are served, around an
 * echo executor that behaves like the router's hosted echo (a working status, then completed, both with
 * the text). A text `count:N` streams N working statuses before completing (the streaming comparison).
 */
import express from "express";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { TaskState, type AgentCard, type Message, type Part } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" });
const message = (text: string, taskId: string, contextId: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: 2,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const text = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, say: string) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message: message(say, taskId, contextId), timestamp: new Date().toISOString() },
        metadata: undefined,
      });
    bus.publish(
      AgentEvent.task(
        ctx.task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        },
      ),
    );
    const n = text.startsWith("count:") ? Number(text.slice(6)) : 0;
    if (n > 0) for (let i = 1; i <= n; i++) bus.publish(status(TaskState.TASK_STATE_WORKING, String(i)));
    else bus.publish(status(TaskState.TASK_STATE_WORKING, text));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, n > 0 ? "done" : text));
    bus.finished();
  },
  async cancelTask() {},
};

let url = "";
const iface = (protocolVersion: string) => ({ url: `${url}/`, protocolBinding: "JSONRPC", tenant: "", protocolVersion });
const card = (): AgentCard => ({
  name: "echo",
  description: "echo",
  supportedInterfaces: [iface("1.0"), iface("0.3")],
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "echo", tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
});
const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
const app = express();
app.use(
  "/",
  express.json({ limit: "10mb" }),
  jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }),
);
const server = app.listen(0, "127.0.0.1", () => {
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  console.log(JSON.stringify({ url }));
});
process.on("SIGTERM", () => process.exit(0));
