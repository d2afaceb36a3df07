/**
 * A `tools/call` stream on the wire, read as raw SSE: the priming event, one progress notification per status
 * line with the event id the log derives, then the result, in that order; the same frames whether the call's
 * progress is written by the face itself (a POST of the call alone) or through the SDK (a POST of a batch).
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { parseCallEventId } from "../../router/faces/mcp/event-ids.js";
import { startChatRig, type ChatRig } from "../chat/helpers.js";

const VERSION = "2025-11-25";
let rig: ChatRig;
let url: string;
let headers: Record<string, string>;

beforeAll(async () => {
  rig = await startChatRig();
  url = `${rig.router.url}/mcp`;
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  await init.text();
  headers = { ...base, "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": VERSION };
  await (await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
});

afterAll(async () => {
  await fetch(url, { method: "DELETE", headers }).catch(() => undefined);
  await rig.close();
});

interface Frame {
  id?: string;
  event?: string;
  data: string;
}

/** Posts `body` and reads its SSE response to the end, letting the stepper's turn through. */
async function callStepper(body: unknown): Promise<Frame[]> {
  rig.stepped.reset();
  const response = fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  await rig.stepped.reached("status-1");
  rig.stepped.release("step-1");
  await rig.stepped.reached("status-2");
  rig.stepped.release("step-2");
  const res = await response;
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const frames: Frame[] = [];
  for (const block of (await res.text()).split("\n\n")) {
    if (block.trim() === "" || block.startsWith(":")) continue;
    const frame: Frame = { data: "" };
    for (const line of block.split("\n")) {
      const at = line.indexOf(": ");
      const [name, value] = at < 0 ? [line.replace(/:$/, ""), ""] : [line.slice(0, at), line.slice(at + 2)];
      if (name === "id") frame.id = value;
      else if (name === "event") frame.event = value;
      else if (name === "data") frame.data = value;
    }
    frames.push(frame);
  }
  return frames;
}

const call = (id: number, token: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "stepper", arguments: { message: "world" }, _meta: { progressToken: token } },
});

/**
 * The call's frames: priming, progress, result, each id naming the call and a later event of its task (the
 * priming event of a batch's stream names no call: the route plans calls posted alone).
 */
function expectCallFrames(frames: Frame[], requestId: number, token: number, primedByCall: boolean): void {
  const own = frames.filter((f) => f.data === "" || (JSON.parse(f.data) as { id?: unknown }).id === requestId || f.data.includes("notifications/progress"));
  expect(own.map((f) => (f.data === "" ? "priming" : f.data.includes("notifications/progress") ? "progress" : "result"))).toEqual([
    "priming",
    "progress",
    "progress",
    "result",
  ]);
  const ids = (primedByCall ? own : own.slice(1)).map((f) => parseCallEventId(f.id ?? ""));
  for (const id of ids) expect(id?.key).toEqual({ ...ids[0]!.key, requestId, progressToken: token });
  const seqs = ids.map((id) => id!.seq);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  expect(new Set(seqs).size).toBe(seqs.length);
  if (!primedByCall) seqs.unshift(Number.NaN);
  const progress = own.slice(1, 3).map((f) => JSON.parse(f.data) as { method: string; params: { progressToken: number; progress: number; message: string } });
  expect(progress.map((p) => p.params.message)).toEqual(["Looking things up", "Writing the answer"]);
  for (const [i, p] of progress.entries())
    expect(p).toEqual({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: seqs[i + 1], message: p.params.message } });

  for (const f of own.slice(1)) expect(f.event).toBe("message");
  expect(JSON.parse(own[3]!.data)).toMatchObject({ jsonrpc: "2.0", id: requestId, result: { structuredContent: { state: "completed" } } });
}

describe("a tools/call stream on the wire", () => {
  test("alone in its POST: priming, each status line as its own progress notification, then the result", async () => {
    expectCallFrames(await callStepper(call(11, 7)), 11, 7, true);
  });

  test("in a batch (progress through the SDK): the same frames", async () => {
    const frames = await callStepper([call(12, 8), { jsonrpc: "2.0", id: 13, method: "ping" }]);
    expectCallFrames(frames, 12, 8, false);
    expect(frames.some((f) => f.data !== "" && (JSON.parse(f.data) as { id?: unknown }).id === 13)).toBe(true);
  });
});
