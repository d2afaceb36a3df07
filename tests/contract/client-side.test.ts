import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { type Gate, gatedHubAgent, until } from "../interop/helpers.js";
import { jsonRpcFace, restFace, type ClientFace, type FaceEvent } from "./client-faces.js";

/**
 * One client-side round trip (send, stream, resubscribe with Last-Event-ID, get, list, cancel, errors), run
 * over every face and dialect the router serves, in the style of hono's one suite over every router: the
 * same task service must look the same through each.
 */

let router: RunningRouter;
let hub: Awaited<ReturnType<typeof gatedHubAgent>>;
const gates = new Map<string, Gate>();

beforeAll(async () => {
  router = await testRouter();
  hub = await gatedHubAgent(router.url, "gated", gates);
});

afterAll(async () => {
  for (const g of gates.values()) g.open();
  await hub.close();
  await router.close();
});

/** The logged part of a stream: its SSE ids must count 1, 2, ... with no gap. */
function logged(events: FaceEvent[]): FaceEvent[] {
  return events.filter((e) => e.seq !== undefined);
}

function runClientSuite(makeFace: () => ClientFace): void {
  let face: ClientFace;
  beforeAll(() => {
    face = makeFace();
  });

  test("send answers the finished task", async () => {
    const r = await face.send("echo", "round trip");
    expect(r).toMatchObject({ state: "completed", text: "round trip" });
    expect((await face.get("echo", r.taskId)).state).toBe("completed");
  });

  test("stream: seqs 1..n with no gap, ended by the final state; Last-Event-ID resumes exactly after it", async () => {
    const { taskId, events } = await face.stream("echo", "streamed");
    const seqs = logged(events).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ state: "completed", final: true });
    const rest = await face.resubscribe("echo", taskId, 1);
    expect(rest.map((e) => e.seq)).toEqual(seqs.slice(1));
    expect(rest.at(-1)).toMatchObject({ state: "completed" });
  });

  test("cancel a running hub task: the open stream ends canceled, get agrees, a second cancel is refused", async () => {
    const key = `${face.name} cancel`;
    const { taskId, stream } = await face.open("gated", key);
    await until(() => gates.has(key), "the agent to wait");
    expect((await face.cancel("gated", taskId)).state).toBe("canceled");
    const events = await stream.all();
    expect(events.length).toBeGreaterThan(0);
    expect((await face.get("gated", taskId)).state).toBe("canceled");
    await expect(face.cancel("gated", taskId)).rejects.toThrow(/cancel/i);
  });

  test("an unknown task is task-not-found", async () => {
    expect(await face.missing("echo")).toBe("task-not-found");
  });

  test("list finds the task by its context where the face has ListTasks", async () => {
    if (!face.list) return expect(face.name).not.toMatch(/1\.0/);
    const { taskId } = await face.send("echo", "listed");
    const contexts = await fetch(`${router.url}/agents/echo/rest/tasks/${taskId}`).then((r) => r.json() as Promise<{ contextId: string }>);
    expect(await face.list("echo", contexts.contextId)).toEqual([taskId]);
  });
}

for (const dialect of ["v0.1", "v0.3", "v1.0"] as const) {
  describe(`client round trip: JSON-RPC ${dialect}`, () => runClientSuite(() => jsonRpcFace(router.url, dialect)));
}
describe("client round trip: HTTP+JSON (REST) v1.0", () => runClientSuite(() => restFace(router.url)));
