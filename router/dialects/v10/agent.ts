import { agentOwnedProtocol } from "../shared/agent-owned-protocol.js";
import { isRecord } from "../shared/translate-helpers.js";
import { v10Codec, v10ResultIds } from "./codec.js";
import { v10RestCodec } from "./rest-codec.js";
import { v10GrpcCodec } from "./grpc/upstream-codec.js";
import { updatesFromV10 } from "./translate.js";

/** What the v1.0 agent side reads, over either binding: the same ProtoJSON objects (spec 5.1). */
const v10Reading = { updates: updatesFromV10, isTask: (result: Record<string, unknown>) => isRecord(result.task), ids: v10ResultIds };

/**
 * The agent side of A2A v1.0: talking to a v1.0 agent (`SendMessage`, `SendStreamingMessage`, ProtoJSON)
 * through its codec. The agent chooses the task id, which the router learns from the first result and uses
 * for follow-up turns and cancel.
 */
export const v10Upstream = agentOwnedProtocol({ codec: v10Codec, ...v10Reading });

/**
 * The same over v1.0's HTTP+JSON binding (rest-codec.ts): for an agent whose card offers only that
 * binding, or a config that asks for it (`protocol: "1.0+rest"`). Same ids, translation and text kinds.
 */
export const v10RestUpstream = agentOwnedProtocol({ codec: v10RestCodec, ...v10Reading });

/**
 * The same over v1.0's gRPC binding (grpc/upstream-codec.ts): for an agent whose card offers only that
 * binding, or a config that asks for it (`protocol: "1.0+grpc"`). Same ids, translation and text kinds.
 */
export const v10GrpcUpstream = agentOwnedProtocol({ codec: v10GrpcCodec, ...v10Reading });
