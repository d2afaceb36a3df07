/**
 * What the chat-face suites share: a router with every agent kind (hosted echo and eliza, a hub agent the
 * test drives step by step, an upstream @a2a-js/sdk agent), and the AI SDK's own readers of a UI stream.
 */
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from "ai";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import type { RouterConfigInput } from "../../router/config/config.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { agentText } from "../../router/core/model.js";
import { scriptedAgent } from "../helpers/agents.js";
import { SdkAgent } from "../interop/sdk-agent.js";
import { deferred, memoryLogger } from "../sdk/helpers.js";

export { deferred };

interface Gate {
  promise: Promise<void>;
  resolve: () => void;
}

/** A hub agent whose turns wait on gates the test opens: nothing races. */
export class SteppedAgent {
  readonly agent: Agent;
  /** Opened by the test: `release("step-1")` lets the turn past its first wait. */
  #gates = new Map<string, Gate>();
  #reached = new Map<string, Gate>();
  canceled = 0;

  constructor(hubUrl: string, name: string) {
    const gate = (key: string) => {
      if (!this.#gates.has(key)) this.#gates.set(key, deferred<void>());
      return this.#gates.get(key)!.promise;
    };
    const reach = (key: string): void => {
      void this.reached(key);
      this.#reached.get(key)!.resolve();
    };
    const self = this;
    // One skill (the chat faces send no skill): "hang" works until canceled, "fail" fails, anything else
    // answers in steps: a progress line, wait, another, wait, then the answer in two chunks.
    this.agent = connectAgent({ url: hubUrl, name, logger: memoryLogger(), card: { description: "A test agent that waits for its test" } }).skill(
      { name: "steps", description: "answers in steps", examples: ["hello"] },
      async function* (message, ctx) {
        if (message === "fail") throw new Error("the tool broke");
        if (message === "hang") {
          await ctx.status("Working forever");
          reach("hanging");
          await new Promise<void>((resolve) => (ctx.signal.aborted ? resolve() : ctx.signal.addEventListener("abort", () => resolve(), { once: true })));
          self.canceled += 1;
          return;
        }
        await ctx.status("Looking things up");
        reach("status-1");
        await gate("step-1");
        await ctx.status("Writing the answer");
        reach("status-2");
        await gate("step-2");
        yield "Hello ";
        yield `${message}!`;
      },
    );
  }

  /** Resolves once the turn got to `key` (already or later). */
  reached(key: string): Promise<void> {
    if (!this.#reached.has(key)) this.#reached.set(key, deferred<void>());
    return this.#reached.get(key)!.promise;
  }

  release(key: string): void {
    if (!this.#gates.has(key)) this.#gates.set(key, deferred<void>());
    this.#gates.get(key)!.resolve();
  }

  /** Fresh gates for the next turn. */
  reset(): void {
    this.#gates.clear();
    this.#reached.clear();
  }
}

export interface ChatRig {
  router: RunningRouter;
  stepped: SteppedAgent;
  upstream: SdkAgent;
  close(): Promise<void>;
}

/** A hosted agent whose answer comes with artifacts that are not the answer: data, a file, a text note. */
export const artist = scriptedAgent("artist", async function* () {
  yield { kind: "artifact", artifact: { artifactId: "chart", name: "chart", parts: [{ kind: "data", data: { bars: [1, 2], title: "sales" } }] } };
  yield {
    kind: "artifact",
    artifact: {
      artifactId: "report",
      name: "report",
      parts: [{ kind: "file", file: { name: "report.pdf", mimeType: "application/pdf", uri: "https://example.com/report.pdf" } }],
    },
  };
  yield { kind: "status", status: { state: "completed", message: agentText("Here is your chart.") }, final: true };
});

/** A router with echo, eliza, "artist", the stepped hub agent "stepper" and the upstream agent "shouter". */
export async function startChatRig(config: RouterConfigInput = {}): Promise<ChatRig> {
  const upstream = await new SdkAgent({ streaming: true }).start();
  const router = await startRouter({
    host: "127.0.0.1",
    port: 0,
    store: "memory",
    hostedAgents: [artist],
    config: { ...config, agents: [{ id: "shouter", url: upstream.url }], hub: { allowAnonymous: true } },
  });
  const stepped = new SteppedAgent(`${router.url.replace(/^http/, "ws")}/hub`, "stepper");
  await stepped.agent.ready;
  return {
    router,
    stepped,
    upstream,
    async close() {
      await stepped.agent.close();
      await router.close();
      await upstream.stop();
    },
  };
}

/** The UI message chunks of a response, parsed and validated by the AI SDK itself. */
export function uiChunks(res: Response): ReadableStream<UIMessageChunk> {
  if (!res.body) throw new Error("no body");
  return parseJsonEventStream({ stream: res.body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        controller.enqueue(result.value as UIMessageChunk);
      },
    }),
  );
}

/** Reads a whole UI stream as `useChat` would: every chunk, and the final message (`readUIMessageStream`). */
export async function readUi(
  res: Response,
  onChunk: (c: UIMessageChunk) => void | Promise<void> = () => {},
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage; errors: unknown[] }> {
  const chunks: UIMessageChunk[] = [];
  const errors: unknown[] = [];
  const tapped = uiChunks(res).pipeThrough(
    new TransformStream<UIMessageChunk, UIMessageChunk>({
      async transform(chunk, controller) {
        chunks.push(chunk);
        await onChunk(chunk);
        controller.enqueue(chunk);
      },
    }),
  );
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: tapped, onError: (e) => errors.push(e) })) message = m;
  if (!message) throw new Error("the stream held no message");
  return { chunks, message, errors };
}

/** The text of a UI message's text parts, joined; and the last text part alone. */
export function uiText(message: UIMessage): { all: string; last: string } {
  const texts = message.parts.filter((p): p is { type: "text"; text: string } => p.type === "text").map((p) => p.text);
  return { all: texts.join(""), last: texts.at(-1) ?? "" };
}

/** POST /api/chat as DefaultChatTransport sends it. */
export function postChat(
  url: string,
  body: { id: string; text: string; agent?: string },
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(`${url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    signal: init.signal,
    body: JSON.stringify({
      id: body.id,
      ...(body.agent !== undefined && { agent: body.agent }),
      messages: [{ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: body.text }] }],
      trigger: "submit-message",
    }),
  });
}
