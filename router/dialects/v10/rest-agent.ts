import type { UpstreamCall, UpstreamProtocol } from "../shared/upstream-protocol.js";
import { v10Upstream } from "./agent.js";

/** The v1.0 HTTP+JSON paths the router calls (spec 11.3), under the interface URL. */
const PATHS = {
  send: "/message:send",
  stream: "/message:stream",
  cancel: (taskId: string) => `/tasks/${encodeURIComponent(taskId)}:cancel`,
} as const;

/**
 * The agent side of A2A v1.0 over its HTTP+JSON (REST) binding (spec 11): for an agent whose card offers
 * only that binding, or a config that asks for it (`protocol: "1.0+rest"`).
 *
 * The binding carries the same ProtoJSON objects as v1.0 JSON-RPC (spec 5.1, functional equivalence): a
 * SendMessageRequest body, a SendMessageResponse (`{task}` / `{message}`) back, StreamResponse objects as
 * SSE data. Only the addressing differs (an operation is a path, not a method) and nothing is wrapped in a
 * JSON-RPC envelope, which the transport handles from the call's `path`. So this is the v1.0 JSON-RPC
 * client with paths: the same ids (the agent's task id on follow-ups and cancel), the same translation,
 * the same text kinds.
 */
export const v10RestUpstream: UpstreamProtocol = {
  ...v10Upstream,

  turn(ctx, streaming, upstreamTaskId): UpstreamCall {
    const call = v10Upstream.turn(ctx, streaming, upstreamTaskId);
    return { ...call, path: streaming ? PATHS.stream : PATHS.send };
  },

  // The task id is in the path; CancelTaskRequest's other members (tenant, metadata) are optional.
  cancel(upstreamTaskId): UpstreamCall {
    const call = v10Upstream.cancel(upstreamTaskId);
    return { ...call, params: {}, path: PATHS.cancel(upstreamTaskId) };
  },
};
