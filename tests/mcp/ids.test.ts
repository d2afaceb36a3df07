/** The MCP face's self-describing ids: session ids sealed per key set, call event ids naming a call's task and seq. */
import { expect, test } from "@jest/globals";
import { TASK_ERROR_REASONS } from "../../router/core/errors.js";
import { MCP_REASON_ERRORS, toolName } from "../../router/faces/mcp/index.js";
import { callEventId, parseCallEventId } from "../../router/faces/mcp/event-ids.js";
import { SessionIds } from "../../router/faces/mcp/session-id.js";

const claims = { owner: "alice", protocolVersion: "2025-11-25", elicitation: true, client: { name: "host", version: "1" } };

test("a session id opens to its claims with the same secret only; altered or foreign ids open to nothing", () => {
  const ids = new SessionIds("secret");
  const id = ids.issue(claims);
  expect(ids.open(id)).toEqual(claims);
  expect(new SessionIds("secret").open(id)).toEqual(claims);
  expect(new SessionIds("other").open(id)).toBeUndefined();
  const [prefix, body, mac] = id.split(".");
  const forged = Buffer.from(JSON.stringify({ o: "mallory", v: "2025-11-25", e: 0, c: {}, n: "x" })).toString("base64url");
  expect(ids.open(`${prefix}.${forged}.${mac}`)).toBeUndefined();
  expect(ids.open(`${prefix}.${body}`)).toBeUndefined();
  expect(ids.open("not-an-id")).toBeUndefined();
  expect(ids.issue(claims)).not.toBe(id);
});

test("a call event id round-trips; anything else is not one", () => {
  const key = { requestId: 7, taskId: "t-1", fromSeq: 3, progressToken: "p" };
  expect(parseCallEventId(callEventId(key, 5))).toEqual({ key, seq: 5 });
  expect(parseCallEventId(callEventId({ requestId: "r", taskId: "t", fromSeq: 0 }, 0))).toEqual({ key: { requestId: "r", taskId: "t", fromSeq: 0 }, seq: 0 });
  expect(parseCallEventId(callEventId(key, 2))).toBeUndefined(); // before the call began
  for (const bad of ["s.abc.1", "c1.!!.1", "c1.e30.1", "42", ""]) expect(parseCallEventId(bad)).toBeUndefined();
});

test("tool names keep MCP's alphabet; every task error reason has an MCP error", () => {
  expect(toolName("my agent/v2:beta")).toBe("my_agent_v2_beta");
  expect(toolName("a.b-c_D9")).toBe("a.b-c_D9");
  expect(Object.keys(MCP_REASON_ERRORS).sort()).toEqual([...TASK_ERROR_REASONS].sort());
});
