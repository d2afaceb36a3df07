import express from "express";
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { Role, TaskState, type AgentCard, type Message, type Part, type Task } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

/**
 * The A2A TCK's scenario agent (/work/shared/tck/tck10/scenarios/*.feature), an upstream HTTP agent built from
 * @a2a-js/sdk's server: a message whose `messageId` starts with a scenario prefix (`tck-complete-task`,
 * `tck-artifact-text`, `tck-input-required`, `tck-stream-001`, ...) triggers that scenario's behaviour, as the
 * TCK's own Python SUT (tck10/sut/a2a-python/sut_agent.py) does. Put behind the router, it lets the TCK test
 * the router rather than an echo. A message id without the `tck-` prefix (the v0.3 line's) gets an answer and
 * a task waiting for input, so the v0.3 line can continue, cancel and read back the task its blocking send returned.
 *
 * Why an upstream HTTP agent and not a hub agent: hub protocol 1 hands a hub agent the message in the v0.1
 * shape without its `messageId` (the scenario switch), and cannot answer with a bare Message or reject with an
 * error (`tck-message-response`, `tck-reject-task`). docs/conformance.md says which move to the SDK with hub
 * protocol 2.
 *
 * Run: `node tests/conformance/tck-agent.ts [--port N]` (Node's type stripping), then register its URL in the
 * router's config as an `agents` entry.
 */

/** The feature files' "2x streaming timeout" for the long-running resubscription scenario. */
const LONG_TASK_MS = 4000;

/** A running scenario agent. */
export interface TckAgent {
  url: string;
  stop(): Promise<void>;
}

/** Starts the scenario agent on a loopback port (0: any free port). */
export async function startTckAgent(port = 0): Promise<TckAgent> {
  let url = "";
  const card = (): AgentCard => ({
    name: "TCK scenario agent",
    description: "Plays the A2A TCK's scenarios (tck10/scenarios/*.feature), chosen by the messageId prefix",
    supportedInterfaces: [{ url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: { organization: "a2a-router", url: "https://github.com/a2aproject/a2a-tck" },
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "tck",
        name: "TCK Conformance",
        description: "Handles TCK conformance test messages",
        tags: ["tck"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  });
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor());
  const app = express();
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: async () => card() }));
  app.use("/a2a/jsonrpc", express.json(), jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const server: Server = app.listen(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

function executor(): AgentExecutor {
  const running = new Map<string, () => void>();
  return {
    execute: async (ctx: RequestContext, bus: ExecutionEventBus) => {
      const { taskId, contextId } = ctx;
      const id = ctx.userMessage.messageId;
      const say = (text: string): Message => agentMessage([text_(text)], taskId, contextId);
      const status = (state: TaskState, message?: Message) =>
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined }));
      const artifact = (parts: Part[], append = false, lastChunk = false, artifactId: string = randomUUID()) =>
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId, name: "", description: "", parts, metadata: undefined, extensions: [] },
            append,
            lastChunk,
            metadata: undefined,
          }),
        );
      const done = (message?: Message) => {
        status(TaskState.TASK_STATE_COMPLETED, message);
        bus.finished();
      };
      if (id.startsWith("tck-message-response")) {
        bus.publish(AgentEvent.message(say("Direct message response")));
        bus.finished();
        return;
      }
      if (id.startsWith("tck-reject-task")) throw new Error("rejected");
      // Every other turn is a task, opened with the Task as it stands (the SDK wants it first).
      bus.publish(AgentEvent.task(ctx.task ?? newTask(taskId, contextId, ctx.userMessage)));
      const streamed = (text: string) => {
        status(TaskState.TASK_STATE_WORKING);
        artifact([text_(text)]);
        done();
      };
      if (id.startsWith("tck-stream-artifact-chunked")) {
        status(TaskState.TASK_STATE_WORKING);
        const artifactId = randomUUID();
        artifact([text_("chunk-1 ")], true, false, artifactId);
        artifact([text_("chunk-2")], true, true, artifactId);
        return done();
      }
      if (id.startsWith("test-resubscribe-message-id")) {
        status(TaskState.TASK_STATE_WORKING);
        await new Promise<void>((release) => {
          const timer = setTimeout(release, LONG_TASK_MS);
          running.set(taskId, () => {
            clearTimeout(timer);
            release();
          });
        });
        if (!running.delete(taskId)) return; // canceled: cancelTask ended the turn
        return done();
      }
      if (id.startsWith("tck-stream-artifact-text")) return streamed("Streamed text content");
      if (id.startsWith("tck-stream-artifact-file")) {
        status(TaskState.TASK_STATE_WORKING);
        artifact([filePart()]);
        return done();
      }
      if (id.startsWith("tck-stream-ordering-001")) return streamed("Ordered output");
      if (id.startsWith("tck-artifact-file-url")) {
        artifact([
          { content: { $case: "url", value: "https://example.com/output.txt" }, metadata: undefined, filename: "output.txt", mediaType: "text/plain" },
        ]);
        return done();
      }
      if (id.startsWith("tck-input-required")) {
        status(TaskState.TASK_STATE_INPUT_REQUIRED);
        bus.finished();
        return;
      }
      if (id.startsWith("tck-complete-task")) return done(say("Hello from TCK"));
      if (id.startsWith("tck-artifact-text")) {
        artifact([text_("Generated text content")]);
        return done();
      }
      if (id.startsWith("tck-artifact-file")) {
        artifact([filePart()]);
        return done();
      }
      if (id.startsWith("tck-artifact-data")) {
        artifact([{ content: { $case: "data", value: { key: "value", count: 42 } }, metadata: undefined, filename: "", mediaType: "" }]);
        return done();
      }
      if (id.startsWith("tck-stream-001")) return streamed("Stream hello from TCK");
      if (id.startsWith("tck-stream-002")) return done();
      if (id.startsWith("tck-stream-003")) return streamed("Stream task lifecycle");
      if (!id.startsWith("tck-")) {
        // The v0.3 line (tck03) names no scenario and expects a task it may go on adding messages to, cancel and
        // read back after a blocking send: every turn answers and waits for more input.
        status(TaskState.TASK_STATE_INPUT_REQUIRED, say(`Hello World! You said: '${textOf(ctx.userMessage)}'. Anything else?`));
        bus.finished();
        return;
      }
      done(say(`Unhandled messageId prefix: ${id}`));
    },
    cancelTask: async (taskId: string, bus: ExecutionEventBus) => {
      const release = running.get(taskId);
      running.delete(taskId);
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

function textOf(message: Message): string {
  return message.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

function text_(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

/** The scenarios' file part: `output.txt`, text/plain, three bytes. */
function filePart(): Part {
  return { content: { $case: "raw", value: Buffer.from("tck") }, metadata: undefined, filename: "output.txt", mediaType: "text/plain" };
}

function agentMessage(parts: Part[], taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const at = process.argv.indexOf("--port");
  const agent = await startTckAgent(at > 0 ? Number(process.argv[at + 1]) : 0);
  process.stdout.write(`${agent.url}\n`);
}
