import { describe, expect, test } from "@jest/globals";
import type { AgentUpdate } from "../../router/core/model.js";
import { errorInRouterTerms, inRouterTerms, v01Upstream, v03Upstream, v10Upstream, type UpstreamScope } from "../../router/dialects/index.js";

/** The upstream edge in memory: an agent's update in the router's ids, with its text kind named (CONTRACT 9). */

const scope = (workingTextKind: UpstreamScope["workingTextKind"]): UpstreamScope => ({
  taskId: "router-task",
  contextId: "router-ctx",
  upstream: { taskId: "their-task", contextId: "their-ctx" },
  workingTextKind,
});

const say = (text: string) => ({ role: "agent" as const, parts: [{ kind: "text" as const, text }], taskId: "their-task", contextId: "their-ctx" });

describe("text kinds", () => {
  test("each dialect's agent side names its non-final status text: v0.1 delta, v0.3/v1.0 progress", () => {
    expect(v01Upstream.workingTextKind).toBe("delta");
    expect(v03Upstream.workingTextKind).toBe("progress");
    expect(v10Upstream.workingTextKind).toBe("progress");
  });

  test("non-final: the dialect's kind; final or turn-ending: snapshot; no message: no kind; metadata kept", () => {
    const working: AgentUpdate = { kind: "status", status: { state: "working", message: say("chunk") }, metadata: { fullText: "x", merge: "replace" } };
    expect(inRouterTerms(working, scope("delta")).metadata).toEqual({ fullText: "x", merge: "replace", textKind: "delta" });
    expect(inRouterTerms(working, scope("progress")).metadata).toEqual({ fullText: "x", merge: "replace", textKind: "progress" });
    for (const update of [
      { kind: "status", status: { state: "completed", message: say("done") }, metadata: { cost: { usd: 1 } } },
      { kind: "status", status: { state: "input-required", message: say("which?") } },
      { kind: "status", status: { state: "working", message: say("last") }, final: true },
    ] as AgentUpdate[]) {
      expect(inRouterTerms(update, scope("delta")).metadata).toMatchObject({ textKind: "snapshot" });
    }
    const bare = inRouterTerms({ kind: "status", status: { state: "working" } }, scope("delta"));
    expect(bare.metadata).toBeUndefined();
  });

  test("an upstream that names a valid kind itself (another a2a-router) keeps it; an invalid one is replaced", () => {
    const named = (textKind: unknown): AgentUpdate => ({ kind: "status", status: { state: "working", message: say("x") }, metadata: { textKind } });
    expect(inRouterTerms(named("progress"), scope("delta")).metadata?.textKind).toBe("progress");
    expect(inRouterTerms(named("snapshot"), scope("progress")).metadata?.textKind).toBe("snapshot");
    expect(inRouterTerms(named("shouting"), scope("delta")).metadata?.textKind).toBe("delta");
  });
});

describe("ids", () => {
  test("a status message loses the upstream's ids; metadata naming them names the router's", () => {
    const update: AgentUpdate = {
      kind: "status",
      status: { state: "completed", message: { ...say("done"), metadata: { replyTo: "their-task" } } },
      metadata: { upstream: { task: "their-task", ctx: ["their-ctx"] }, note: "their-task is mentioned in text" },
    };
    const out = inRouterTerms(update, scope("progress"));
    expect(out.kind === "status" && out.status.message).toEqual({
      role: "agent",
      parts: [{ kind: "text", text: "done" }],
      metadata: { replyTo: "router-task" },
    });
    expect(out.metadata).toEqual({ upstream: { task: "router-task", ctx: ["router-ctx"] }, note: "their-task is mentioned in text", textKind: "snapshot" });
  });

  test("artifact ids and metadata, part metadata and data parts name the router's ids; text is the agent's own", () => {
    const update: AgentUpdate = {
      kind: "artifact",
      artifact: {
        artifactId: "their-task",
        parts: [
          { kind: "text", text: "their-task", metadata: { task: "their-task" } },
          { kind: "data", data: { taskId: "their-task", contextId: "their-ctx", n: 1 } },
        ],
        metadata: { source: "their-ctx" },
      },
      metadata: { taskId: "their-task" },
    };
    expect(inRouterTerms(update, scope("progress"))).toEqual({
      kind: "artifact",
      artifact: {
        artifactId: "router-task",
        parts: [
          { kind: "text", text: "their-task", metadata: { task: "router-task" } },
          { kind: "data", data: { taskId: "router-task", contextId: "router-ctx", n: 1 } },
        ],
        metadata: { source: "router-ctx" },
      },
      metadata: { taskId: "router-task" },
    });
  });

  test("ids the upstream shares with the router (a v0.1 agent, a context the router named) are left as they are", () => {
    const same: UpstreamScope = { ...scope("delta"), upstream: { taskId: "router-task", contextId: "router-ctx" } };
    const update: AgentUpdate = { kind: "artifact", artifact: { artifactId: "a", parts: [] }, metadata: { t: "router-task" } };
    expect(inRouterTerms(update, same)).toEqual(update);
  });
});

describe("an upstream error in the router's terms", () => {
  test("an id the message quotes becomes the router's; only whole ids, so a short one leaves words alone", () => {
    const err = errorInRouterTerms(new Error("Task not found: their-task (their-task-2 is another)"), scope("progress")) as Error;
    expect(err.message).toBe("Task not found: router-task (their-task-2 is another)");
    const short = { taskId: "router-task", contextId: "router-ctx", upstream: { taskId: "t", contextId: "1" } };
    const mixed = errorInRouterTerms(new Error("Upstream agent at port 18 said: task t (context 1) not found"), short) as Error;
    expect(mixed.message).toBe("Upstream agent at port 18 said: task router-task (context router-ctx) not found");
    expect((errorInRouterTerms(new Error("a.b+c?"), { ...short, upstream: { taskId: "b+c?" } }) as Error).message).toBe("a.router-task");
  });
});
